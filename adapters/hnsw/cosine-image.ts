/**
 * The memory a restored hnswlib file is assembled in, and the one computation that fills it: the
 * vector hnswlib's cosine space stores for a given one. The binding (native/graph.cc `normalise`,
 * as hnswlib-node's `normalizePoint`) takes the float sum of squares in order, its square root and
 * one float division per component; reproduced bit for bit, so a restored file is the file hnswlib
 * wrote.
 *
 * Done in WebAssembly, whose f32 operations are IEEE single precision as the binding's are: in
 * JavaScript every step needs `Math.fround` and the division loop runs in doubles, which made it
 * 2-4x slower (~4 µs a 384-d vector; 100k vectors are reloaded on every reopen). Where
 * WebAssembly cannot be had, the same computation in JavaScript takes over.
 */

/** Where `put` writes: `bytes` is the image, offsets are from its start. */
export interface CosineImage {
  readonly bytes: Buffer;
  /** Writes what hnswlib stores for `vector` at byte `offset` of the image (a multiple of 4). */
  put(vector: Float32Array, offset: number): void;
}

/** `bytes` bytes of uninitialised image for vectors of `dimensions`; `engine` is for tests. */
export function cosineImage(dimensions: number, bytes: number, engine: 'wasm' | 'js' = 'wasm'): CosineImage {
  return engine === 'wasm' && wasm !== undefined && dimensions >= 1 ? wasmImage(wasm, dimensions, bytes) : jsImage(dimensions, bytes);
}

/** The part of the WebAssembly global used here (the project's type libraries declare no values of it). */
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => { readonly buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

const PAGE = 65_536;
let compiled: object | undefined;

function wasmImage(api: WasmApi, dimensions: number, bytes: number): CosineImage {
  // The memory holds one vector in and its normalised copy out; the image is an ordinary buffer.
  // An image in the WebAssembly memory saved that copy but outlived the restore: V8 did not
  // collect it in 1,000 queries after reopening 100k chunks (+176 MiB anonymous RSS).
  const vectorBytes = Math.ceil((dimensions * 4) / 16) * 16;
  const memory = new api.Memory({ initial: Math.ceil((2 * vectorBytes) / PAGE) });
  compiled ??= new api.Module(NORMALISE_MODULE);
  const instance = new api.Instance(compiled, { m: { m: memory } });
  const normalise = instance.exports.n as (from: number, to: number, length: number) => number;
  const input = new Float32Array(memory.buffer, 0, dimensions);
  const output = new Uint8Array(memory.buffer, vectorBytes, dimensions * 4);
  const image = ownBuffer(bytes);
  const floats = new Float32Array(image.buffer, 0, bytes >>> 2);
  return {
    bytes: image,
    put(vector, offset) {
      input.set(vector);
      // Divides into `output` when the length is neither 0 (or NaN) nor exactly 1; else x / 1 is x.
      const length = normalise(0, vectorBytes, dimensions);
      if (length > 0 && length !== 1) image.set(output, offset);
      else floats.set(vector, offset >>> 2);
    },
  };
}

/** Not from Buffer's shared pool (that serves small sizes only): offset 0 of a memory of its own. */
function ownBuffer(bytes: number): Buffer {
  return Buffer.allocUnsafeSlow(bytes);
}

function jsImage(dimensions: number, bytes: number): CosineImage {
  const image = ownBuffer(bytes);
  const floats = new Float32Array(image.buffer, 0, bytes >>> 2);
  return {
    bytes: image,
    put(vector, offset) {
      const at = offset >>> 2;
      let sum = 0;
      for (let i = 0; i < dimensions; i++) {
        const value = vector[i] as number;
        sum = Math.fround(sum + Math.fround(value * value));
      }
      const length = Math.fround(Math.sqrt(Math.abs(sum)));
      if (length > 0 && length !== 1) for (let i = 0; i < dimensions; i++) floats[at + i] = (vector[i] as number) / length;
      else floats.set(vector, at);
    },
  };
}

/** Unsigned LEB128, as WebAssembly encodes sizes. */
function leb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content];

/**
 * `n(from, to, length): f32` over the imported memory `m.m`: sum = Σ from[i]², in order, in f32;
 * norm = sqrt(|sum|); when norm > 0 and norm ≠ 1, to[i] = from[i] / norm. Returns norm. Locals:
 * 0 from, 1 to, 2 length (≥ 1), 3 i, 4 sum, 5 value, 6 norm.
 */
const NORMALISE_MODULE = (() => {
  const GET = 0x20;
  const SET = 0x21;
  const TEE = 0x22;
  const I32_CONST = 0x41;
  const F32_CONST = 0x43;
  /** Address of element i of the f32 array at local `base`: base + (i << 2). */
  const element = (base: number) => [GET, base, GET, 3, I32_CONST, 2, 0x74 /* i32.shl */, 0x6a /* i32.add */];
  /** i += 1; loop again while i < length. */
  const next = [GET, 3, I32_CONST, 1, 0x6a, TEE, 3, GET, 2, 0x48 /* i32.lt_s */, 0x0d /* br_if */, 0];
  const F32_LOAD = [0x2a, 2, 0];
  const F32_STORE = [0x38, 2, 0];
  // prettier-ignore
  const body = [
    // locals: one i32 (i), three f32 (sum, value, norm)
    2, 1, 0x7f, 3, 0x7d,
    // loop: sum = sum + value * value
    0x03, 0x40, GET, 4, ...element(0), ...F32_LOAD, TEE, 5, GET, 5, 0x94 /* f32.mul */, 0x92 /* f32.add */, SET, 4, ...next, 0x0b,
    // norm = sqrt(abs(sum))
    GET, 4, 0x8b /* f32.abs */, 0x91 /* f32.sqrt */, SET, 6,
    // if (norm > 0 & norm != 1)
    GET, 6, F32_CONST, 0, 0, 0, 0, 0x5e /* f32.gt */, GET, 6, F32_CONST, 0, 0, 0x80, 0x3f, 0x5c /* f32.ne */, 0x71 /* i32.and */,
    0x04, 0x40, I32_CONST, 0, SET, 3,
    // loop: to[i] = from[i] / norm
    0x03, 0x40, ...element(1), ...element(0), ...F32_LOAD, GET, 6, 0x95 /* f32.div */, ...F32_STORE, ...next, 0x0b,
    0x0b, GET, 6, 0x0b,
  ];
  // prettier-ignore
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    // type 0: (i32, i32, i32) -> f32
    ...section(1, [1, 0x60, 3, 0x7f, 0x7f, 0x7f, 1, 0x7d]),
    // import memory m.m, at least 0 pages
    ...section(2, [1, 1, 0x6d, 1, 0x6d, 2, 0, 0]),
    ...section(3, [1, 0]),
    // export function 0 as n
    ...section(7, [1, 1, 0x6e, 0, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
})();
