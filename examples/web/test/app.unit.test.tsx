// @vitest-environment happy-dom
// The example app's components against the SDK's testing kit: the service in memory behind a fetch, no server.
import { createFakePlantStore } from '@plant-store/sdk/testing';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/App.js';
import { createdIds } from '../src/created-ids.js';

const fake = createFakePlantStore();
const baseUrl = 'http://plant-store.test';
let token: string;
let storage: Storage;

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => {
      items.delete(key);
    },
    setItem: (key, value) => {
      items.set(key, value);
    },
  };
}

function renderApp(
  options: { pageSize?: number; fetch?: (request: Request) => Promise<Response>; token?: string } = {},
) {
  return render(
    <App
      initial={{ baseUrl, token: options.token ?? token }}
      fetch={options.fetch ?? fake.fetch}
      pageSize={options.pageSize ?? 10}
      storage={storage}
    />,
  );
}

const listed = () =>
  within(screen.getByRole('list', { name: 'plants' }))
    .getAllByRole('listitem')
    .map((item) => item.textContent);

function addPlant(fields: { id: string; name: string; tag?: string }) {
  const form = screen.getByRole('form', { name: 'add plant' });
  fireEvent.change(within(form).getByLabelText('Id'), { target: { value: fields.id } });
  fireEvent.change(within(form).getByLabelText('Name'), { target: { value: fields.name } });
  fireEvent.change(within(form).getByLabelText('Tag'), { target: { value: fields.tag ?? '' } });
  fireEvent.click(within(form).getByRole('button', { name: 'Add' }));
  return form;
}

beforeEach(() => {
  fake.reset();
  token = fake.createToken({ subject: 'gardener' });
  storage = memoryStorage();
});

afterEach(() => cleanup());

describe('example web app', () => {
  it('lists the plants of the token’s owner', async () => {
    fake.seed('gardener', [
      { id: 2, name: 'Basil', tag: 'herb' },
      { id: 1, name: 'Fern' },
    ]);
    fake.seed('someone-else', [{ id: 3, name: 'Not mine' }]);
    renderApp();
    await waitFor(() => expect(listed()).toEqual(['Fern', 'Basil (herb)']));
    expect(screen.queryByRole('button', { name: 'More' })).toBeNull();
  });

  it('says so when there are no plants', async () => {
    renderApp();
    expect(await screen.findByText('No plants yet.')).toBeTruthy();
  });

  it('pages with "More", following the Link cursor', async () => {
    fake.seed(
      'gardener',
      Array.from({ length: 5 }, (_, index) => ({ id: index + 1, name: `Plant ${index + 1}` })),
    );
    renderApp({ pageSize: 2 });
    await waitFor(() => expect(listed()).toEqual(['Plant 1', 'Plant 2']));
    fireEvent.click(screen.getByRole('button', { name: 'More' }));
    await waitFor(() => expect(listed()).toEqual(['Plant 1', 'Plant 2', 'Plant 3', 'Plant 4']));
    fireEvent.click(screen.getByRole('button', { name: 'More' }));
    await waitFor(() => expect(listed()).toHaveLength(5));
    expect(screen.queryByRole('button', { name: 'More' })).toBeNull();
    const pages = fake.requests.filter((request) => request.method === 'GET');
    expect(pages.map((request) => new URL(request.url).searchParams.has('cursor'))).toEqual([false, true, true]);
  });

  it('adds a plant, refreshes the list and remembers the id it sent (a listed plant has none)', async () => {
    renderApp();
    await screen.findByText('No plants yet.');
    addPlant({ id: '9223372036854775807', name: 'Cactus', tag: 'desert' });
    expect(await screen.findByText('Added Cactus as id 9223372036854775807.')).toBeTruthy();
    await waitFor(() => expect(listed()).toEqual(['Cactus (desert)']));
    expect(fake.plantsOf('gardener')).toEqual([{ id: 9223372036854775807n, name: 'Cactus', tag: 'desert' }]);
    const mine = within(screen.getByRole('list', { name: 'added in this tab' }));
    expect(mine.getByRole('listitem').textContent).toContain('9223372036854775807: Cactus');
    expect(createdIds(`${baseUrl} ${token.slice(-12)}`, storage).list()).toEqual([
      { id: '9223372036854775807', name: 'Cactus', tag: 'desert' },
    ]);
  });

  it('deletes by a remembered id and by a typed id', async () => {
    fake.seed('gardener', [{ id: 5, name: 'Old fern' }]);
    renderApp();
    await waitFor(() => expect(listed()).toEqual(['Old fern']));
    addPlant({ id: '6', name: 'Mint' });
    await waitFor(() => expect(listed()).toEqual(['Old fern', 'Mint']));
    fireEvent.click(screen.getByRole('button', { name: 'delete 6' }));
    expect(await screen.findByText('Deleted plant 6.')).toBeTruthy();
    await waitFor(() => expect(listed()).toEqual(['Old fern']));
    expect(screen.queryByRole('list', { name: 'added in this tab' })).toBeNull();

    const form = screen.getByRole('form', { name: 'delete plant' });
    fireEvent.change(within(form).getByLabelText('Id'), { target: { value: '5' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Deleted plant 5.')).toBeTruthy();
    expect(await screen.findByText('No plants yet.')).toBeTruthy();
    expect(fake.plantsOf('gardener')).toEqual([]);
  });

  it('highlights the field a 400 names, from error.body.details', async () => {
    renderApp();
    await screen.findByText('No plants yet.');
    const form = addPlant({ id: '7', name: 'x'.repeat(201), tag: 'ok' });
    const alert = await within(form.parentElement!).findByRole('alert');
    expect(alert.textContent).toMatch(/^Could not add plant 7: .*name.* \(400\)$/);
    const name = within(form).getByLabelText('Name');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(name.getAttribute('aria-describedby')!)!.textContent).toBe(
      'name must be at most 200 characters',
    );
    expect(within(form).getByLabelText('Tag').getAttribute('aria-invalid')).toBe('false');
    expect(within(form).getByLabelText('Id').getAttribute('aria-invalid')).toBe('false');
    expect(fake.plantsOf('gardener')).toEqual([]);
  });

  it('checks the id before sending: text that is no int64 never reaches the service', async () => {
    renderApp();
    await screen.findByText('No plants yet.');
    const before = fake.requests.length;
    const form = addPlant({ id: '1.5', name: 'Fern' });
    expect(within(form).getByLabelText('Id').getAttribute('aria-invalid')).toBe('true');
    expect(fake.requests.length).toBe(before);
  });

  it('explains a 409 and marks the id', async () => {
    fake.seed('gardener', [{ id: 8, name: 'Fern' }]);
    renderApp();
    await waitFor(() => expect(listed()).toEqual(['Fern']));
    const form = addPlant({ id: '8', name: 'Another fern' });
    const alert = await within(form.parentElement!).findByRole('alert');
    expect(alert.textContent).toBe(
      'Could not add plant 8: a plant with this id already exists (409). Pick another id.',
    );
    expect(within(form).getByLabelText('Id').getAttribute('aria-invalid')).toBe('true');
  });

  it('explains a 429 with the wait the service asked for', async () => {
    renderApp();
    await screen.findByText('No plants yet.');
    // Longer than the SDK's maxDelayMs, so it is not waited for: the RateLimitError reaches the page at once.
    fake.failNext({ status: 429, retryAfterSeconds: 30 });
    const form = addPlant({ id: '9', name: 'Fern' });
    const alert = await within(form.parentElement!).findByRole('alert');
    expect(alert.textContent).toBe('Too many requests (429): try again in 30 s.');
  });

  it('explains a 401 without retrying it', async () => {
    const revoked = fake.createToken({ subject: 'gardener' });
    fake.revokeToken(revoked);
    renderApp({ token: revoked });
    expect((await screen.findByRole('alert')).textContent).toBe(
      'The service did not accept the token (401): check it and connect again.',
    );
    expect(fake.requests.filter((request) => request.method === 'GET')).toHaveLength(1);
  });

  it('aborts the list request when the page goes away', async () => {
    const signals: AbortSignal[] = [];
    const never = (request: Request) => {
      signals.push(request.signal);
      return new Promise<Response>((_resolve, reject) => {
        request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
      });
    };
    const view = renderApp({ fetch: never });
    await waitFor(() => expect(signals).toHaveLength(1));
    expect(signals[0]!.aborted).toBe(false);
    view.unmount();
    await waitFor(() => expect(signals[0]!.aborted).toBe(true));
  });
});
