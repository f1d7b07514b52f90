// Next.js global types (also pulled in by the generated next-env.d.ts, which is not committed), so
// `npm run typecheck` sees exactly what `next build` type-checks.
/// <reference types="next" />
/// <reference types="next/image-types/global" />
