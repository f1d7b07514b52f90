import type { ReactNode } from "react";

export const metadata = { title: "Maisaka", description: "Watch and steer the Maisaka reasoning engine" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", margin: 0 }}>{children}</body>
    </html>
  );
}
