// The shape test that routes a bearer token to JWT verification, apart from jwt.ts so that a service without JWT
// configured never loads jose (app.ts imports jwt.ts only when JWT_* is set).
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** True when the bearer token has the three-part shape of a JWT (opaque tokens never do). */
export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}
