import { createHash, type Hash } from "node:crypto";
import type { Readable } from "node:stream";
import type { AnnouncedPart } from "./files.table.ts";

/** What reading an uploaded object found: its length, its SHA-256 and each announced part's (base64). */
export interface ObjectDigests {
  size: number;
  sha256: string;
  parts: Map<number, string>;
}

/**
 * Reads the object once, hashing it whole and each part over its announced range `[chunk_start,
 * chunk_end)`, so the checksums a seller sent are checked whatever the store (S3 checks parts
 * itself; the local store and S3-compatible servers may not).
 */
export async function digestObject(body: Readable, parts: readonly AnnouncedPart[]): Promise<ObjectDigests> {
  const whole = createHash("sha256");
  const hashes = new Map<number, Hash>(parts.map((part) => [part.number, createHash("sha256")]));
  let offset = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    whole.update(chunk);
    const end = offset + chunk.length;
    for (const part of parts) {
      const from = Math.max(part.chunk_start, offset);
      const to = Math.min(part.chunk_end, end);
      if (from < to) hashes.get(part.number)!.update(chunk.subarray(from - offset, to - offset));
    }
    offset = end;
  }
  return {
    size: offset,
    sha256: whole.digest("base64"),
    parts: new Map([...hashes].map(([number, hash]) => [number, hash.digest("base64")])),
  };
}

/** The hex form of a base64 SHA-256 (both are shown). */
export const sha256Hex = (base64: string): string => Buffer.from(base64, "base64").toString("hex");
