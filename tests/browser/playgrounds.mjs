export function register(suite) { void suite; }
