/**
 * Cosine similarity of two vectors. Stored and query vectors are normally unit length already, but
 * need not be; a zero vector is similar to nothing (0), and a shorter `b` counts as zero-padded.
 */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/**
 * `cosineSimilarity(query, b)` for many `b`, with the query's norm computed once (a lexical top
 * 100 compares the query with up to 100 stored vectors).
 */
export function similarityTo(query: Float32Array): (b: Float32Array) => number {
  let normQuery = 0;
  for (let i = 0; i < query.length; i++) normQuery += (query[i] as number) ** 2;
  return (b) => {
    if (normQuery === 0) return 0;
    // Entries past the shorter vector add nothing (b zero-padded, or its extra entries ignored).
    const length = Math.min(query.length, b.length);
    let dot = 0;
    let normB = 0;
    for (let i = 0; i < length; i++) {
      const y = b[i] as number;
      dot += (query[i] as number) * y;
      normB += y * y;
    }
    return normB === 0 ? 0 : dot / Math.sqrt(normQuery * normB);
  };
}
