/** What a tool wrote, seen from outside: every file under a folder, fingerprinted. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every file under a folder, with its size, modification time and a hash of its bytes: enough to see a write. */
export function snapshot(dir: string, skip: (path: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (skip(p)) continue;
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const st = statSync(p);
        out.set(p, `${st.size}:${st.mtimeMs}:${Bun.hash(readFileSync(p)).toString(36)}`);
      }
    }
  };
  walk(dir);
  return out;
}
