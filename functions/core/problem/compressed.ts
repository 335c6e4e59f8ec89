import { constants as bufferConstants } from "node:buffer";
import { pipeline, Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { createGunzip } from "node:zlib";
import { AppError } from "../errors.js";

/**
 * Problem files as users keep them: plain MPS/LP text, or gzip-compressed (`afiro.mps.gz`, the way
 * netlib, MIPLIB and the solver test sets are distributed). `readModelText` is the one entry point: it
 * sniffs the first bytes (never trusts a file name), streams a gzip file through decompression, and
 * holds the text to a byte ceiling counted on what comes OUT of the decompressor, so a small file that
 * inflates past it (a zip bomb) is refused as soon as the output crosses the ceiling, with the 413 a
 * body over the request cap gets. Other compressions are recognised and refused with a clear message.
 */

export const ACCEPTED_COMPRESSIONS = ["gzip"] as const;
export type Compression = (typeof ACCEPTED_COMPRESSIONS)[number];

/** A signature byte: a value, or a range of values (bzip2's block size digit). */
type Signature = (number | [number, number])[];

/**
 * Compressions recognised by their leading bytes and refused: Node reads none of them without a
 * dependency (bzip2's npm decoders are unmaintained ones; zstd only from Node 22.15), and a user can
 * gzip any file. Every signature starts with a byte no MPS or LP text starts with, or with "BZh"
 * followed by a digit (no MPS section or LP keyword).
 */
const REFUSED: { name: string; signature: Signature }[] = [
  { name: "bzip2", signature: [0x42, 0x5a, 0x68, [0x31, 0x39]] }, // "BZh1"…"BZh9"
  { name: "xz", signature: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { name: "zstd", signature: [0x28, 0xb5, 0x2f, 0xfd] },
  { name: "zip", signature: [0x50, 0x4b, 0x03, 0x04] },
];
const GZIP: Signature = [0x1f, 0x8b];
/** The longest signature above: how many leading bytes the sniffing waits for. */
const SNIFF_BYTES = 6;

const startsWith = (head: Uint8Array, signature: Signature) =>
  head.length >= signature.length && signature.every((b, i) => (typeof b === "number" ? head[i] === b : head[i]! >= b[0] && head[i]! <= b[1]));

/** What the leading bytes say the file is: gzip, one of the refused compressions, or plain (null). */
export function sniffCompression(head: Uint8Array): Compression | { refused: string } | null {
  if (startsWith(head, GZIP)) return "gzip";
  const refused = REFUSED.find((r) => startsWith(head, r.signature));
  return refused ? { refused: refused.name } : null;
}

/** `afiro.mps.gz` → `afiro.mps`: the name the format is told from. */
export function withoutCompressionSuffix(filename: string): string {
  return filename.replace(/\.(gz|gzip|bz2|xz|zst|zip)$/i, "");
}

/**
 * The byte ceiling of a problem file's text: the request body cap (MAX_REQUEST_BODY_MB) when there is
 * one; without one ("0 = no ceiling") still the longest string V8 can hold, so that an inflating file
 * is refused with a 413 rather than failing the process when the text is made.
 */
export function modelTextLimitBytes(maxRequestBodyMb: number): { bytes: number; describe: string } {
  if (maxRequestBodyMb > 0) return { bytes: Math.floor(maxRequestBodyMb * 1024 * 1024), describe: `${maxRequestBodyMb} MB (MAX_REQUEST_BODY_MB)` };
  const bytes = bufferConstants.MAX_STRING_LENGTH;
  return { bytes, describe: `${Math.floor(bytes / (1024 * 1024))} MB (the longest text this service can hold)` };
}

export interface ReadModelTextOptions {
  /** Most bytes of text (after decompression) accepted. */
  maxBytes: number;
  /** The ceiling as the 413's message names it ("4 MB (MAX_REQUEST_BODY_MB)"). */
  limitDescription?: string;
}

export interface ModelText {
  text: string;
  /** How the file came compressed; null for plain text. */
  compression: Compression | null;
}

type Source = ReadableStream<Uint8Array> | Blob | Uint8Array;

const toStream = (source: Source): ReadableStream<Uint8Array> =>
  source instanceof Uint8Array
    ? new ReadableStream({
        start(controller) {
          controller.enqueue(source);
          controller.close();
        },
      })
    : source instanceof Blob
      ? (source.stream() as ReadableStream<Uint8Array>)
      : source;

/** Reads until `count` bytes (or the end) are in hand; returns them and a stream of everything, those first. */
async function peek(stream: ReadableStream<Uint8Array>, count: number): Promise<{ head: Uint8Array; whole: ReadableStream<Uint8Array> }> {
  const reader = stream.getReader();
  const taken: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < count) {
    const next = await reader.read();
    if (next.done) {
      done = true;
      break;
    }
    if (next.value.length === 0) continue;
    taken.push(next.value);
    length += next.value.length;
  }
  const head = new Uint8Array(length);
  let at = 0;
  for (const chunk of taken) {
    head.set(chunk, at);
    at += chunk.length;
  }
  const whole = new ReadableStream<Uint8Array>({
    start(controller) {
      if (head.length > 0) controller.enqueue(head);
      if (done) controller.close();
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { head, whole };
}

/** zlib's own failures (a corrupt or cut-short stream) carry a Z_… code. */
const isZlibError = (error: unknown): error is Error & { code: string } =>
  error instanceof Error && typeof (error as unknown as { code?: unknown }).code === "string" && (error as unknown as { code: string }).code.startsWith("Z_");

const tooLarge = (limit: string) =>
  new AppError("payload_too_large", `The problem file is larger than ${limit} once decompressed; the limit applies to the decompressed text.`);

/**
 * The text of a problem file, plain or gzip-compressed, read as a stream and held to `maxBytes` of
 * text. Throws 413 payload_too_large as soon as the text passes the ceiling (the rest is neither read
 * nor decompressed), 422 invalid_problem_file for a gzip stream that does not decompress or a
 * compression this service does not read.
 */
export async function readModelText(source: Source, options: ReadModelTextOptions): Promise<ModelText> {
  const limit = options.limitDescription ?? `${options.maxBytes} bytes`;
  const { head, whole } = await peek(toStream(source), SNIFF_BYTES);
  const sniffed = sniffCompression(head);
  if (sniffed !== null && typeof sniffed === "object") {
    await whole.cancel().catch(() => undefined);
    throw new AppError(
      "invalid_problem_file",
      `The file is ${sniffed.refused}-compressed; this service reads MPS and LP files plain or gzip-compressed (.gz). Recompress it with gzip.`,
    );
  }
  const compression = sniffed;
  // Node's zlib stream honours backpressure (it stops inflating while its output is unread), so what is
  // decompressed stays within the ceiling plus a buffer or two, however far the file would inflate.
  const input = Readable.fromWeb(whole as NodeReadableStream<Uint8Array>);
  const output: Readable = compression === "gzip" ? pipeline(input, createGunzip(), () => undefined) : input;
  const decoder = new TextDecoder("utf-8");
  const parts: string[] = [];
  let bytes = 0;
  try {
    for await (const chunk of output as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      if (bytes > options.maxBytes) throw tooLarge(limit);
      parts.push(decoder.decode(chunk, { stream: true }));
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (compression === "gzip" && isZlibError(error))
      throw new AppError("invalid_problem_file", `The file is gzip-compressed but does not decompress: ${error.message}.`);
    throw error;
  } finally {
    output.destroy();
    input.destroy();
  }
  parts.push(decoder.decode());
  return { text: parts.join(""), compression };
}
