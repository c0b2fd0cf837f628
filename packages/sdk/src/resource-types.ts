// The client's resource methods as types, derived from the contract's generated SDK rows (SDK_OPERATIONS) and its
// generated types: a new operation in openapi.yaml gives a typed method after `pnpm gen`, with no edit here.
import type {
  OperationId,
  PathParamsOf,
  QueryOf,
  RequestBodyOf,
  SDK_OPERATIONS,
  SuccessBodyOf,
} from '@plant-store/contract';
import type { CallOptions } from './transport.js';

/** One generated row of the SDK's surface: an operation, where it sits, and the behaviours it takes. */
export type SdkRow = (typeof SDK_OPERATIONS)[number];

type Id<Row extends SdkRow> = Row['operationId'] & OperationId;
/** T with its intersections merged into one object type, as editors show it. */
export type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The intersection of a union's members: one object with every operation's methods. */
export type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void
  ? I
  : never;

type PathValues<Op extends OperationId, Names> = Names extends readonly [infer Name, ...infer Rest]
  ? [PathParamsOf<Op>[Name & keyof PathParamsOf<Op>], ...PathValues<Op, Rest>]
  : [];
type PathArgs<Row extends SdkRow> = PathValues<Id<Row>, Row['pathParams']>;
type BodyArg<Row extends SdkRow> = Row['body'] extends true ? [body: RequestBodyOf<Id<Row>>] : [];
type QueryArg<Row extends SdkRow> = Row['query'] extends true ? [query?: NonNullable<QueryOf<Id<Row>>>] : [];

/** What an operation's method takes before its CallOptions: path parameters (in path order), the body, the query. */
export type ArgsOf<Row extends SdkRow> = [...PathArgs<Row>, ...BodyArg<Row>, ...QueryArg<Row>];

/** What an operation's method resolves to: the success answer's body, void for a 204. */
// biome-ignore lint/suspicious/noConfusingVoidType: a method answered 204 resolves to void, as `delete` always has.
export type AnswerOf<Row extends SdkRow> = [SuccessBodyOf<Id<Row>>] extends [undefined] ? void : SuccessBodyOf<Id<Row>>;

/** The method of an operation: its arguments, then CallOptions; resolves to the answer, throws PlantStoreSdkError. */
export type OperationMethod<Row extends SdkRow> = (
  ...args: [...ArgsOf<Row>, options?: CallOptions]
) => Promise<AnswerOf<Row>>;

/** The query a paged list takes: `limit` and `cursor`. */
export type PagedQueryOf<Row extends SdkRow> = NonNullable<QueryOf<Id<Row>>>;

/** One page of a paged list, under its resource's name, and where the next begins. */
export type PageOf<Row extends SdkRow> = Simplify<
  { [K in Row['resource']]: AnswerOf<Row> } & {
    /** Pass as `cursor` for the next page; undefined on the last page. */
    nextCursor: string | undefined;
  }
>;

/** What `listAll` takes: the page size, as `pageSize` or under the name `list` uses, `limit`; never a cursor. */
export type PagedAllQueryOf<Row extends SdkRow> = Simplify<
  Omit<PagedQueryOf<Row>, 'cursor'> & {
    /** Items fetched per request (the contract's default when absent). Not a cap on the total: listAll yields all. */
    pageSize?: PagedQueryOf<Row> extends { limit?: infer Limit } ? Limit : never;
  }
>;

type Item<Row extends SdkRow> = AnswerOf<Row> extends readonly (infer I)[] ? I : never;

/** The three methods of a paged list named N: N (one page's items), NPage (with the cursor), NAll (every item). */
type PagedMethods<Row extends SdkRow> = {
  [K in Row['name']]: (query?: PagedQueryOf<Row>, options?: CallOptions) => Promise<AnswerOf<Row>>;
} & {
  [K in `${Row['name']}Page`]: (query?: PagedQueryOf<Row>, options?: CallOptions) => Promise<PageOf<Row>>;
} & {
  [K in `${Row['name']}All`]: (
    query?: PagedAllQueryOf<Row>,
    options?: CallOptions,
  ) => AsyncGenerator<Item<Row>, void, undefined>;
};

type MethodsOf<Row extends SdkRow> = Row extends SdkRow
  ? Row['paged'] extends true
    ? PagedMethods<Row>
    : { [K in Row['name']]: OperationMethod<Row> }
  : never;

/** Every resource of the contract with its methods: `plants: { list, listPage, listAll, create, delete }`. */
export type PlantStoreResources = {
  [Resource in SdkRow['resource']]: Simplify<UnionToIntersection<MethodsOf<Extract<SdkRow, { resource: Resource }>>>>;
};
