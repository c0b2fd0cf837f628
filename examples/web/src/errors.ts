// Turns what the SDK throws into words for a person and the form fields to highlight. Every failure of a call is a
// PlantStoreSdkError; a 400 carries body.details (location, field, rule, limit) naming the offending field.
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  PlantStoreAbortError,
  PlantStoreConnectionError,
  PlantStoreError,
  PlantStoreSdkError,
  PlantStoreTimeoutError,
  RateLimitError,
} from '@plant-store/sdk';

/** A message for the page, and per form field what is wrong with it. */
export interface ShownError {
  message: string;
  fields: Record<string, string>;
}

type Detail = NonNullable<NonNullable<BadRequestError['body']>['details']>[number];

function describeRule({ field, rule, limit }: Detail): string {
  switch (rule) {
    case 'minLength':
      return limit === 1 ? `${field} must not be empty` : `${field} must be at least ${limit} characters`;
    case 'maxLength':
      return `${field} must be at most ${limit} characters`;
    case 'minimum':
      return `${field} must be at least ${limit}`;
    case 'maximum':
      return `${field} must be at most ${limit}`;
    case 'required':
      return `${field} is required`;
    case 'pattern':
      return `${field} must not contain control characters`;
    case 'type':
      return `${field} has the wrong type`;
    case 'int64':
      return `${field} must be a whole number from -9223372036854775808 to 9223372036854775807`;
    case 'unknownField':
      return `${field} is not a field of a plant`;
    default:
      return `${field} is not valid (${rule})`;
  }
}

/** What to show for a failed call; `action` names what was tried ("add plant 7"). */
export function describeError(error: unknown, action: string): ShownError {
  const fields: Record<string, string> = {};
  if (!(error instanceof PlantStoreSdkError)) {
    return { message: `Could not ${action}: ${error instanceof Error ? error.message : String(error)}`, fields };
  }
  if (error instanceof BadRequestError) {
    for (const detail of error.body?.details ?? []) {
      if (detail.field && fields[detail.field] === undefined) fields[detail.field] = describeRule(detail);
    }
    return { message: `Could not ${action}: ${error.message} (400)`, fields };
  }
  if (error instanceof AuthenticationError) {
    return { message: 'The service did not accept the token (401): check it and connect again.', fields };
  }
  if (error instanceof PermissionDeniedError) {
    return { message: `Could not ${action}: this token may not do that (403).`, fields };
  }
  if (error instanceof ConflictError) {
    fields.id = 'this id is taken';
    return { message: `Could not ${action}: a plant with this id already exists (409). Pick another id.`, fields };
  }
  if (error instanceof NotFoundError) {
    fields.id = 'no such plant';
    return { message: `Could not ${action}: there is no plant of yours with this id (404).`, fields };
  }
  if (error instanceof RateLimitError) {
    const wait = error.retryAfterMs === undefined ? 'a moment' : `${Math.ceil(error.retryAfterMs / 1000)} s`;
    return { message: `Too many requests (429): try again in ${wait}.`, fields };
  }
  if (error instanceof PlantStoreTimeoutError || error instanceof PlantStoreConnectionError) {
    return { message: `Could not ${action}: ${error.message}`, fields };
  }
  if (error instanceof PlantStoreAbortError) return { message: `Cancelled: ${action}.`, fields };
  const requestId = error instanceof PlantStoreError && error.requestId ? ` (request id ${error.requestId})` : '';
  return { message: `Could not ${action}: ${error.message}${requestId}`, fields };
}
