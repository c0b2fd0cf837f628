-- mixed: 9 reads (limit 10..100) to 1 create, over many principals; each thread its own id range
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
end
local n = 0
local auths = {}
function init(args)
  for token in string.gmatch(os.getenv("TOKENS"), "[^,]+") do auths[#auths + 1] = "Bearer " .. token end
  math.randomseed(tid * 7919 + tonumber(os.getenv("SEED")))
end
request = function()
  local auth = auths[math.random(#auths)]
  if math.random(10) == 1 then
    n = n + 1
    local id = tonumber(os.getenv("BASE")) + tid * 100000000 + n
    local body = string.format('{"id":%d,"name":"mixed plant %d","tag":"bench"}', id, n)
    return wrk.format("POST", "/plants", {["Content-Type"] = "application/json", ["Authorization"] = auth}, body)
  end
  return wrk.format("GET", string.format("/plants?limit=%d", math.random(10, 100)), {["Authorization"] = auth})
end
