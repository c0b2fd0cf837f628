// Types of serve-flags.js, for scripts/start.ts.
export declare const SERVE_ENV: { MALLOC_ARENA_MAX: string };
export declare function missingServeFlags(execArgv: readonly string[], env: NodeJS.ProcessEnv): string[];
export declare function missingArchiveFlags(execArgv: readonly string[], env: NodeJS.ProcessEnv): string[];
