import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './client.js';
import { openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { SERVER_KINDS, startServer, type RunningServer } from './servers.js';

interface ErrorBody {
  error: { code: string; message: string; details?: { issues?: { path: string }[] } };
}

const MAX_FILE = 64 * 1024;
const MAX_JSON = 32 * 1024;

function fileForm(
  fields: Record<string, string>,
  file?: { bytes: Uint8Array | string; name: string; type: string; field?: string },
): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  if (file) form.set(file.field ?? 'file', new Blob([file.bytes], { type: file.type }), file.name);
  return form;
}

describe.each(SERVER_KINDS)('multipart uploads and body limits on %s', (kind) => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let datastoreId: string;

  beforeAll(async () => {
    fixture = await openFixture({ http: { maxFileBytes: MAX_FILE, maxJsonBytes: MAX_JSON } });
    server = await startServer(kind, fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    datastoreId = (await api.post<{ id: string }>('/api/datastores', { name: 'Uploads' })).body.id;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('refuses an oversized file with 413, whether caught by its declared length or while streaming, and keeps serving', async () => {
    for (const size of [MAX_FILE + 1, 512 * 1024, 3 * 1024 * 1024]) {
      const bytes = new TextEncoder().encode('lorem ipsum '.repeat(Math.ceil(size / 12))).slice(0, size);
      const viaCreate = await api.post<ErrorBody>('/api/datasources', undefined, {
        body: fileForm({ type: 'file', datastoreId }, { bytes, name: 'big.txt', type: 'text/plain' }),
      });
      expect(viaCreate.status, `create, ${size} bytes`).toBe(413);
      expect(viaCreate.body.error.code).toBe('payload_too_large');
      const viaUpload = await api.post<ErrorBody>(`/api/external/datastores/file-upload/${datastoreId}`, undefined, {
        body: fileForm({}, { bytes, name: 'big.txt', type: 'text/plain' }),
      });
      expect(viaUpload.status, `upload, ${size} bytes`).toBe(413);
    }
    const fits = await api.post<{ id: string }>(`/api/external/datastores/file-upload/${datastoreId}`, undefined, {
      body: fileForm({}, { bytes: 'lorem ipsum '.repeat(Math.floor((MAX_FILE - 10) / 12)), name: 'fits.txt', type: 'text/plain' }),
    });
    expect(fits.status).toBe(200);
    expect((await fixture.ragdesk.datasources.list(datastoreId)).map((ds) => ds.id)).toEqual([fits.body.id]);
  });

  it('sniffs the bytes: an unsupported file type is 415 whatever its declared type or name', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1]);
    const elf = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0x3e, 0, 1, 0, 0, 0]);
    for (const [bytes, name, type] of [
      [png, 'picture.png', 'image/png'],
      [png, 'notes.txt', 'text/plain'],
      [elf, 'report.pdf', 'application/pdf'],
    ] as const) {
      const response = await api.post<ErrorBody>('/api/datasources', undefined, {
        body: fileForm({ type: 'file', datastoreId }, { bytes, name, type }),
      });
      expect(response.status, name).toBe(415);
      expect(response.body.error.code).toBe('unsupported_media_type');
    }
  });

  it('names every missing field of a form in one 400', async () => {
    const noFile = await api.post<ErrorBody>('/api/datasources', undefined, { body: fileForm({ type: 'file', datastoreId }) });
    expect(noFile.status).toBe(400);
    expect(noFile.body.error.details?.issues?.map((issue) => issue.path)).toEqual(['file']);
    const noFields = await api.post<ErrorBody>('/api/datasources', undefined, {
      body: fileForm({}, { bytes: 'hello there', name: 'a.txt', type: 'text/plain' }),
    });
    expect(noFields.status).toBe(400);
    expect(noFields.body.error.details?.issues?.map((issue) => issue.path).sort()).toEqual(['datastoreId', 'type']);
    const nothing = await api.post<ErrorBody>('/api/datasources', undefined, { body: fileForm({ fileName: 'x' }) });
    expect(nothing.body.error.details?.issues?.map((issue) => issue.path).sort()).toEqual(['datastoreId', 'file', 'type']);
    const wrongField = await api.post<ErrorBody>(`/api/external/datastores/file-upload/${datastoreId}`, undefined, {
      body: fileForm({}, { bytes: 'hello', name: 'a.txt', type: 'text/plain', field: 'document' }),
    });
    expect(wrongField.status).toBe(400);
    const jsonFile = await api.post<ErrorBody>('/api/datasources', { type: 'file', datastoreId });
    expect(jsonFile.status).toBe(415);
    const notMultipart = await api.post<ErrorBody>(`/api/external/datastores/file-upload/${datastoreId}`, { file: 'x' });
    expect(notMultipart.status).toBe(415);
    const truncated = await api.post<ErrorBody>('/api/datasources', undefined, {
      body: '--abc\r\nContent-Disposition: form-data; name="type"\r\n\r\nfile\r\n--abc\r\nContent-Disp',
      headers: { 'content-type': 'multipart/form-data; boundary=abc' },
    });
    expect(truncated.status).toBe(400);
  });

  it('refuses a JSON body over the limit with 413 and still answers the next request', async () => {
    const documents = Array.from({ length: 40 }, (_, i) => ({ text: `document ${i} `.repeat(100) }));
    const tooBig = await api.post<ErrorBody>(`/api/datastores/upsert/${datastoreId}`, { documents });
    expect(tooBig.status).toBe(413);
    // Chunked (no Content-Length): caught while reading.
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ documents })));
        controller.close();
      },
    });
    const streamed = await fetch(`${server.origin}/api/datastores/upsert/${datastoreId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.alice}`, 'content-type': 'application/json' },
      body: chunks,
      duplex: 'half',
    });
    expect(streamed.status).toBe(413);
    expect((await api.get(`/api/datastores/${datastoreId}`)).status).toBe(200);
  });
});
