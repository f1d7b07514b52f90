export default function Home() {
  return (
    <main style={{ padding: 24 }}>
      <h1>Maisaka</h1>
      <p>The engine runs headless for now: try <code>npm run -s maisaka -- simulate --script examples/group-chat.jsonl</code>.</p>
    </main>
  );
}
