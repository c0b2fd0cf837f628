// Types of tick-shapes.js, for its tests.
export declare function keepTickShapes(): { readonly tick: object | undefined };
