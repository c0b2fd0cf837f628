// The SDK's cost per call: the same sequential requests through the SDK and through a bare fetch.
import { createPlantStoreClient } from '@plant-store/sdk';

export async function sdkOverhead(url: string, token: string, calls = 2000) {
  const client = createPlantStoreClient({ baseUrl: url, token });
  const bare = async () => {
    const response = await fetch(`${url}/plants?limit=10`, { headers: { authorization: `Bearer ${token}` } });
    return response.json();
  };
  const viaSdk = () => client.plants.list({ limit: 10 });
  const time = async (call: () => Promise<unknown>) => {
    for (let i = 0; i < 200; i++) await call();
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await call();
    return Number(process.hrtime.bigint() - start) / calls / 1000;
  };
  // Interleaved twice, so both share the machine's noise.
  const fetchFirst = await time(bare);
  const sdkFirst = await time(viaSdk);
  const fetchSecond = await time(bare);
  const sdkSecond = await time(viaSdk);
  return { calls: calls * 2, fetchUs: (fetchFirst + fetchSecond) / 2, sdkUs: (sdkFirst + sdkSecond) / 2 };
}
