// After `vite build`: a gzip and a brotli copy beside every text file of dist/ worth compressing,
// so the server sends the smaller one a browser accepts (server/app/src/web.rs) without
// compressing on each request. Node's own zlib: no package needed.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const TEXT = /\.(js|mjs|css|html|svg|json|txt|map)$/;
const SMALLEST = 1024;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (TEXT.test(name)) yield path;
  }
}

let before = 0;
let after = 0;
for (const path of files(new URL("../dist", import.meta.url).pathname)) {
  const raw = readFileSync(path);
  if (raw.length < SMALLEST) continue;
  const br = brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  });
  writeFileSync(`${path}.br`, br);
  writeFileSync(`${path}.gz`, gzipSync(raw, { level: 9 }));
  before += raw.length;
  after += br.length;
}
console.log(`compressed dist/: ${(before / 1024).toFixed(0)} KiB of text → ${(after / 1024).toFixed(0)} KiB as brotli`);
