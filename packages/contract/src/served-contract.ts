// Where a deployment serves its own contract: the OpenAPI document as JSON, beside the operations rather than one of
// them. The service answers it, its 404s point to it, the checker reads the served version there, and the validating
// proxy passes it through unchecked.

/** The path of the served contract (GET and HEAD). */
export const SERVED_CONTRACT_PATH = '/openapi.json';
