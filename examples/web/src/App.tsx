// The example app: connect (base URL and token), then list with paging, add and delete plants through the TanStack
// helpers of @plant-store/sdk, showing every failure in words with the offending field highlighted.
import { createPlantStoreClient, PLANT_STORE_LIMITS, type PlantId, parsePlantId } from '@plant-store/sdk';
import { createPlantStoreQueries, type PlantStoreQueries } from '@plant-store/sdk/tanstack';
import { QueryClient, QueryClientProvider, useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useMemo, useState } from 'react';
import { type CreatedIds, type CreatedPlant, createdIds } from './created-ids.js';
import { describeError, type ShownError } from './errors.js';

export interface Connection {
  baseUrl: string;
  token: string;
}

export interface AppProps {
  /** Prefills the connection form; when both are set the app connects at once. */
  initial?: Partial<Connection>;
  /** The fetch the client uses (a test passes the testing kit's `fake.fetch`); the browser's by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** Plants per page of the list (default 10). */
  pageSize?: number;
  /** Where the ids this tab created are kept (default sessionStorage). */
  storage?: Pick<Storage, 'getItem' | 'setItem'>;
}

export function App({ initial = {}, fetch, pageSize = 10, storage }: AppProps): ReactNode {
  const [connection, setConnection] = useState<Connection | undefined>(
    initial.baseUrl && initial.token ? { baseUrl: initial.baseUrl, token: initial.token } : undefined,
  );
  // One QueryClient per connection: another token must not see the previous one's cached pages.
  const session = useMemo(() => {
    if (!connection) return undefined;
    const client = createPlantStoreClient({ ...connection, ...(fetch ? { fetch } : {}) });
    return {
      queryClient: new QueryClient(),
      queries: createPlantStoreQueries(client, { scope: connection.baseUrl }),
      created: createdIds(`${connection.baseUrl} ${connection.token.slice(-12)}`, storage ?? sessionStorageOrNone()),
    };
  }, [connection, fetch, storage]);
  return (
    <main>
      <h1>Plant Store</h1>
      <ConnectionForm initial={connection ?? initial} onConnect={setConnection} />
      {session && (
        <QueryClientProvider client={session.queryClient}>
          <Plants queries={session.queries} created={session.created} pageSize={pageSize} />
        </QueryClientProvider>
      )}
    </main>
  );
}

function sessionStorageOrNone(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
}

function ConnectionForm(props: { initial: Partial<Connection>; onConnect: (connection: Connection) => void }) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    props.onConnect({ baseUrl: String(form.get('baseUrl')).trim(), token: String(form.get('token')).trim() });
  };
  return (
    <form aria-label="connection" onSubmit={submit}>
      <label>
        Service URL <input name="baseUrl" defaultValue={props.initial.baseUrl ?? ''} required />
      </label>{' '}
      <label>
        Token <input name="token" type="password" defaultValue={props.initial.token ?? ''} required />
      </label>{' '}
      <button type="submit">Connect</button>
    </form>
  );
}

interface PlantsProps {
  queries: PlantStoreQueries;
  created: CreatedIds;
  pageSize: number;
}

function Plants({ queries, created, pageSize }: PlantsProps) {
  const [mine, setMine] = useState<CreatedPlant[]>(() => created.list());
  return (
    <>
      <PlantList queries={queries} pageSize={pageSize} />
      <AddPlant queries={queries} onCreated={(plant) => setMine(created.add(plant))} />
      <DeletePlant queries={queries} mine={mine} onDeleted={(id) => setMine(created.remove(id))} />
    </>
  );
}

/** Every page so far, one "More" away from the next: the infinite query follows the Link header's cursor. */
export function PlantList({ queries, pageSize }: { queries: PlantStoreQueries; pageSize: number }) {
  // TanStack passes a signal to the query function and the helper hands it to the SDK: unmounting aborts the request.
  const list = useInfiniteQuery(queries.infinite({ limit: pageSize }));
  const plants = list.data?.pages.flatMap((page, pageIndex) => page.plants.map((plant) => ({ plant, pageIndex })));
  return (
    <section aria-labelledby="list-heading">
      <h2 id="list-heading">Your plants</h2>
      {list.isPending && <p>Loading…</p>}
      {list.error && <ErrorMessage error={describeError(list.error, 'list your plants')} />}
      {plants && plants.length === 0 && <p>No plants yet.</p>}
      {plants && plants.length > 0 && (
        <ul aria-label="plants">
          {plants.map(({ plant, pageIndex }, position) => (
            // A listed plant has no id and names may repeat: the position in the ascending-id list is the key.
            <li key={`${pageIndex}:${position}`}>
              {plant.name}
              {plant.tag ? <span className="tag"> ({plant.tag})</span> : null}
            </li>
          ))}
        </ul>
      )}
      {list.hasNextPage && (
        <button type="button" onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? 'Loading more…' : 'More'}
        </button>
      )}
    </section>
  );
}

/** The id typed into a form, checked before anything is sent: a whole number in the int64 range, else a message. */
function readId(text: string, show: (shown: ShownError | undefined) => void): PlantId | undefined {
  const id = parsePlantId(text.trim());
  show(
    id === undefined
      ? { message: 'The id must be a whole number.', fields: { id: 'a whole number, e.g. 42' } }
      : undefined,
  );
  return id;
}

function AddPlant({ queries, onCreated }: { queries: PlantStoreQueries; onCreated: (plant: CreatedPlant) => void }) {
  const queryClient = useQueryClient();
  const create = useMutation(queries.create(queryClient));
  const [shown, setShown] = useState<ShownError | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const idText = String(form.get('id'));
    const name = String(form.get('name'));
    const tag = String(form.get('tag'));
    setDone(undefined);
    const id = readId(idText, setShown);
    if (id === undefined) return;
    create.mutate(
      { id, name, ...(tag ? { tag } : {}) },
      {
        onSuccess: (plant) => {
          onCreated({ id: String(id), name: plant.name, ...(plant.tag ? { tag: plant.tag } : {}) });
          setDone(`Added ${plant.name} as id ${id}.`);
          formElement.reset();
        },
        onError: (error) => setShown(describeError(error, `add plant ${id}`)),
      },
    );
  };
  const { name, tag } = PLANT_STORE_LIMITS;
  return (
    <section aria-labelledby="add-heading">
      <h2 id="add-heading">Add a plant</h2>
      <form aria-label="add plant" onSubmit={submit} noValidate>
        <Field label="Id" name="id" hint="a whole number, up to 9223372036854775807" error={shown?.fields.id} />
        <Field
          label="Name"
          name="name"
          hint={`${name.minLength}-${name.maxLength} characters`}
          error={shown?.fields.name}
        />
        <Field
          label="Tag"
          name="tag"
          hint={`optional, ${tag.minLength}-${tag.maxLength} characters`}
          error={shown?.fields.tag}
        />
        <button type="submit" disabled={create.isPending}>
          Add
        </button>
      </form>
      {shown && <ErrorMessage error={shown} />}
      {done && <p role="status">{done}</p>}
    </section>
  );
}

function DeletePlant(props: { queries: PlantStoreQueries; mine: CreatedPlant[]; onDeleted: (id: string) => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation(props.queries.delete(queryClient));
  const [shown, setShown] = useState<ShownError | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const [idText, setIdText] = useState('');
  const deleteId = (text: string) => {
    setDone(undefined);
    const id = readId(text, setShown);
    if (id === undefined) return;
    remove.mutate(id, {
      onSuccess: () => {
        props.onDeleted(String(id));
        setDone(`Deleted plant ${id}.`);
        setIdText('');
      },
      onError: (error) => setShown(describeError(error, `delete plant ${id}`)),
    });
  };
  return (
    <section aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete a plant</h2>
      <p>
        A listed plant has no id, so this tab remembers the ids it created (in sessionStorage). Delete one of them, or
        type any id of yours.
      </p>
      {props.mine.length > 0 && (
        <ul aria-label="added in this tab">
          {props.mine.map((plant) => (
            <li key={plant.id}>
              {plant.id}: {plant.name}{' '}
              <button type="button" onClick={() => deleteId(plant.id)} aria-label={`delete ${plant.id}`}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        aria-label="delete plant"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          deleteId(idText);
        }}
      >
        <Field
          label="Id"
          name="id"
          value={idText}
          onChange={setIdText}
          hint="the id you gave it"
          error={shown?.fields.id}
        />
        <button type="submit" disabled={remove.isPending}>
          Delete
        </button>
      </form>
      {shown && <ErrorMessage error={shown} />}
      {done && <p role="status">{done}</p>}
    </section>
  );
}

function Field(props: {
  label: string;
  name: string;
  hint: string;
  error: string | undefined;
  value?: string;
  onChange?: (value: string) => void;
}) {
  const id = useMemo(() => `field-${Math.random().toString(36).slice(2)}`, []);
  const controlled =
    props.onChange === undefined
      ? {}
      : {
          value: props.value ?? '',
          onChange: (event: { target: { value: string } }) => props.onChange?.(event.target.value),
        };
  return (
    <p className={props.error ? 'field invalid' : 'field'}>
      <label htmlFor={id}>{props.label}</label>{' '}
      <input
        id={id}
        name={props.name}
        aria-invalid={props.error ? 'true' : 'false'}
        aria-describedby={`${id}-note`}
        {...controlled}
      />{' '}
      <small id={`${id}-note`} className={props.error ? 'field-error' : 'hint'}>
        {props.error ?? props.hint}
      </small>
    </p>
  );
}

function ErrorMessage({ error }: { error: ShownError }) {
  return (
    <p role="alert" className="error">
      {error.message}
    </p>
  );
}
