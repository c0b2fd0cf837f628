// Test support: a scripted fetch that records every request and answers from a queue.
export interface Recorded {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

type Answer = Response | Error | ((request: Request) => Response | Promise<Response>);

export function scriptedFetch(...answers: Answer[]) {
  const requests: Recorded[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    requests.push({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body ? await request.text() : '',
    });
    const next = answers.shift();
    if (next === undefined) throw new Error('scriptedFetch: no answer left');
    if (next instanceof Error) throw next;
    return typeof next === 'function' ? next(request) : next;
  };
  return { fetch, requests };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', ...headers },
  });
}

export const errorBody = (status: number, message = `failure ${status}`) => json(status, { error: status, message });
