// Locating ill-formed UTF-8. TextDecoder refuses bad bytes but does not say where; this scan
// runs only after a refusal, to report the byte offset.

/** Byte offset of the first ill-formed UTF-8 sequence (Unicode Table 3-7). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const next = bytes[i + k];
      if (next === undefined) return i;
      if (k === 1 ? next < lo || next > hi : next < 0x80 || next > 0xbf) return i;
    }
    i += need + 1;
  }
  return n;
}
