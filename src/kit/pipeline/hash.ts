/** Content hashes as the fleet writes them: `sha256:<hex>`. Bun's native hasher: node:crypto costs ~8 ms to import. */
export const sha256 = (data: string | Uint8Array): string =>
  `sha256:${new Bun.CryptoHasher("sha256").update(data).digest("hex")}`;
