// Types of tick-shapes.js (`@plant-store/server/tick-shapes`).
export declare function keepTickShapes(): { readonly tick: object | undefined };
