import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readModelText, sniffCompression, withoutCompressionSuffix } from "../../../../../functions/core/problem/compressed.js";
import { AppError } from "../../../../../functions/core/errors.js";

/** The bytes as a stream cut into the given chunk sizes (cycled), counting how many were pulled. */
function chunked(bytes: Uint8Array, sizes: number[]): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let at = 0;
  let turn = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const size = Math.max(1, sizes[turn++ % sizes.length]!);
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
  return { stream, pulled: () => Math.min(at, bytes.length) };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

/** Problem-file-like text: printable ASCII, newlines, and some UTF-8 beyond it (names may carry any). */
const text = fc.string({ unit: fc.oneof(fc.string({ minLength: 1, maxLength: 1 }), fc.constantFrom("\n", " ", "\t", "é", "∑", "😀")), maxLength: 3000 });
const chunkSizes = fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 8 });
const utf8Length = (s: string) => Buffer.byteLength(s, "utf8");

describe("readModelText", () => {
  it("gives back any text gzip-compressed, however its bytes are chunked, and says it was gzip", async () => {
    await fc.assert(
      fc.asyncProperty(text, chunkSizes, fc.integer({ min: 1, max: 9 }), async (t, sizes, level) => {
        const { stream } = chunked(gzipSync(t, { level }), sizes);
        expect(await readModelText(stream, { maxBytes: 1 << 20 })).toEqual({ text: t, compression: "gzip" });
      }),
      { numRuns: 150 },
    );
  });

  it("gives back plain text as it is, however it is chunked (a blob, bytes or a stream)", async () => {
    await fc.assert(
      fc.asyncProperty(text, chunkSizes, async (t, sizes) => {
        const bytes = new TextEncoder().encode(t);
        expect(await readModelText(chunked(bytes, sizes).stream, { maxBytes: 1 << 20 })).toEqual({ text: t, compression: null });
        expect(await readModelText(new Blob([bytes]), { maxBytes: 1 << 20 })).toEqual({ text: t, compression: null });
        expect(await readModelText(bytes, { maxBytes: 1 << 20 })).toEqual({ text: t, compression: null });
      }),
      { numRuns: 150 },
    );
  });

  it("holds the text to the ceiling counted after decompression: accepted up to it, 413 payload_too_large past it", async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 0, max: 4000 }), fc.boolean(), async (t, maxBytes, compress) => {
        const bytes = compress ? gzipSync(t) : new TextEncoder().encode(t);
        const reading = readModelText(bytes, { maxBytes, limitDescription: "the test's limit" });
        if (utf8Length(t) <= maxBytes) {
          expect((await reading).text).toBe(t);
        } else {
          const error = await refusal(reading);
          expect(error.code).toBe("payload_too_large");
          expect(error.message).toContain("the test's limit once decompressed");
        }
      }),
      { numRuns: 300 },
    );
  });

  it("refuses a gzip bomb early: 1 GiB of output from 1 MB, refused after a few per cent of it is read", async () => {
    // 1,024 gzip members of 1 MiB of zeros each: a valid gzip file (members concatenate) of about 1 MB.
    const member = gzipSync(Buffer.alloc(1 << 20), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 1024 }, () => member));
    const source = chunked(bomb, [1024]);
    const error = await refusal(readModelText(source.stream, { maxBytes: 1 << 20 }));
    expect(error.code).toBe("payload_too_large");
    // The output past the ceiling is never made: only the input that feeds 1 MiB (and the streams' buffers) is read.
    expect(source.pulled()).toBeLessThan(bomb.length / 10);
  });

  it("reads a file of several gzip members whole (gzip -c a b > c)", async () => {
    const joined = Buffer.concat([gzipSync("NAME two\nROWS\n"), gzipSync(" N obj\nENDATA\n")]);
    expect(await readModelText(joined, { maxBytes: 1000 })).toEqual({ text: "NAME two\nROWS\n N obj\nENDATA\n", compression: "gzip" });
  });

  it.each([
    ["cut short", gzipSync("NAME x\nROWS\n N obj\nENDATA\n").subarray(0, 20)],
    ["followed by bytes that are not gzip", Buffer.concat([gzipSync("NAME x\n"), Buffer.from("trailing text")])],
    ["corrupted inside", Buffer.from(gzipSync("NAME x\nROWS\n N obj\nENDATA\n").map((b, i) => (i === 12 ? b ^ 0xff : b)))],
  ])("answers 422 invalid_problem_file for a gzip stream %s", async (_, bytes) => {
    const error = await refusal(readModelText(bytes, { maxBytes: 1000 }));
    expect(error.code).toBe("invalid_problem_file");
    expect(error.message).toMatch(/^The file is gzip-compressed but does not decompress: /);
  });

  it.each([
    ["bzip2", Buffer.from("BZh91AY&SY\x00\x01", "latin1")],
    ["xz", Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04])],
    ["zstd", Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00])],
    ["zip", Buffer.from("PK\x03\x04\x14\x00", "latin1")],
  ])("refuses a %s file with 422 invalid_problem_file that says to gzip it", async (name, bytes) => {
    const error = await refusal(readModelText(bytes, { maxBytes: 1000 }));
    expect(error.code).toBe("invalid_problem_file");
    expect(error.message).toContain(`${name}-compressed`);
    expect(error.message).toContain("gzip");
  });

  it("reads an empty body as empty text", async () => {
    expect(await readModelText(new Uint8Array(0), { maxBytes: 10 })).toEqual({ text: "", compression: null });
  });
});

describe("sniffing and names", () => {
  it("tells gzip from its first two bytes, never from a name; MPS and LP text is plain", () => {
    expect(sniffCompression(gzipSync("x").subarray(0, 2))).toBe("gzip");
    for (const plain of ["NAME afiro", "ROWS", "* comment", "\\ LP comment", "Minimize", "BZh is not bzip2 without its digit", ""])
      expect(sniffCompression(new TextEncoder().encode(plain))).toBeNull();
  });

  it("takes the compression suffix off a name, and only that", () => {
    expect(withoutCompressionSuffix("afiro.mps.gz")).toBe("afiro.mps");
    expect(withoutCompressionSuffix("model.LP.GZ")).toBe("model.LP");
    expect(withoutCompressionSuffix("afiro.mps")).toBe("afiro.mps");
    expect(withoutCompressionSuffix("gz")).toBe("gz");
  });
});
