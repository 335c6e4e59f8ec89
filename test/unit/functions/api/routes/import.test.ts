import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { as, fakeApp } from "../../../../support/fake-api.js";
import { instanceBytes, readInstance } from "../../../../support/manifest.js";

const PREVIEW = "/api/v2/solve/import/preview";

const multipart = (bytes: Uint8Array, name: string): RequestInit => {
  const form = new FormData();
  form.set("file", new Blob([bytes]), name);
  return { method: "POST", body: form };
};

const raw = (bytes: Uint8Array, contentType: string): RequestInit => ({ method: "POST", headers: { "content-type": contentType }, body: bytes });

async function preview(init: RequestInit, query = "", env: Record<string, string> = {}) {
  const { app } = fakeApp({}, env);
  const res = await app.request(`${PREVIEW}${query}`, as("viewer", init));
  return { res, body: (await res.json()) as Record<string, any> };
}

/** What the preview of the plain text says: the reference every compressed upload must match. */
async function plain(name: string) {
  const { body } = await preview({
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ content: readInstance(name), filename: name }),
  });
  return body;
}

describe("import preview of compressed files (issue 27)", () => {
  it("reads afiro.mps.gz uploaded as multipart into the same problem as afiro.mps, and says it was gzip", async () => {
    const { res, body } = await preview(multipart(instanceBytes("afiro.mps"), "afiro.mps.gz"));
    expect(res.status, JSON.stringify(body)).toBe(200);
    const reference = await plain("afiro.mps");
    expect(body.problem).toEqual(reference.problem);
    expect(body.stats).toEqual(reference.stats);
    expect(body).toMatchObject({ format: "mps", filename: "afiro.mps.gz", compression: "gzip" });
    expect(reference.compression).toBeNull();
  });

  it("tells an LP file by its name without the .gz, from a raw application/gzip body", async () => {
    const { res, body } = await preview(raw(instanceBytes("stein27_inf.lp"), "application/gzip"), "?filename=stein27_inf.lp.gz");
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ format: "lp", filename: "stein27_inf.lp.gz", compression: "gzip" });
    expect(body.problem).toEqual((await plain("stein27_inf.lp")).problem);
  });

  it("reads gzip from its bytes whatever the body is declared as (octet-stream, text/plain) or named", async () => {
    for (const type of ["application/octet-stream", "text/plain"]) {
      const { res, body } = await preview(raw(instanceBytes("flugpl.mps"), type));
      expect(res.status, `${type}: ${JSON.stringify(body)}`).toBe(200);
      expect(body).toMatchObject({ compression: "gzip", format: "mps", stats: { variable_count: 18 } });
    }
    const misnamed = await preview(multipart(instanceBytes("flugpl.mps"), "flugpl.mps"));
    expect(misnamed.body).toMatchObject({ compression: "gzip", format: "mps" });
  });

  it("still reads plain files as before (multipart and text/plain)", async () => {
    const text = new TextEncoder().encode(readInstance("galenet.mps"));
    for (const init of [multipart(text, "galenet.mps"), raw(text, "text/plain")]) {
      const { res, body } = await preview(init);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({ compression: null, format: "mps", stats: { constraint_count: 8 } });
    }
  });

  it("refuses a zip bomb under the body cap with 413 payload_too_large, counted on the decompressed text, and closes the connection", async () => {
    // 64 MiB of text from 64 KB: well under MAX_REQUEST_BODY_MB=1 compressed, far over it decompressed.
    const member = gzipSync(`NAME bomb\n${"* padding line of a comment\n".repeat(37449)}`, { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 64 }, () => member));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    for (const init of [multipart(bomb, "bomb.mps.gz"), raw(bomb, "application/gzip")]) {
      const { res, body } = await preview(init, "", { MAX_REQUEST_BODY_MB: "1" });
      expect(res.status).toBe(413);
      expect(body).toMatchObject({ error_code: "payload_too_large", status_code: 413 });
      expect(body.detail).toContain("1 MB (MAX_REQUEST_BODY_MB) once decompressed");
      expect(res.headers.get("connection")).toBe("close");
    }
  });

  it("accepts a compressed file whose text fits the cap", async () => {
    const { res } = await preview(multipart(instanceBytes("afiro.mps"), "afiro.mps.gz"), "", { MAX_REQUEST_BODY_MB: "1" });
    expect(res.status).toBe(200);
  });

  it("refuses a bzip2 file with 422 invalid_problem_file that says to gzip it", async () => {
    const { res, body } = await preview(multipart(Buffer.from("BZh91AY&SY\u0000\u0001", "latin1"), "afiro.mps.bz2"));
    expect(res.status).toBe(422);
    expect(body).toMatchObject({ error_code: "invalid_problem_file" });
    expect(body.detail).toContain("bzip2-compressed");
  });

  it("answers 422 invalid_problem_file for a gzip file cut short", async () => {
    const cut = instanceBytes("afiro.mps").subarray(0, 200);
    const { res, body } = await preview(multipart(cut, "afiro.mps.gz"));
    expect(res.status).toBe(422);
    expect(body.detail).toMatch(/^The file is gzip-compressed but does not decompress/);
  });
});
