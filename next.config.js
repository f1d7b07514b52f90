// Next.js serves the dashboard pages; the custom server (server/start.ts) owns the HTTP server.
/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  typescript: { tsconfigPath: "tsconfig.json" },
  serverExternalPackages: ["better-sqlite3", "@prisma/client", "@prisma/adapter-better-sqlite3"],
};

export default nextConfig;
