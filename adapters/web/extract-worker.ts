/** Extraction thread of `webLoader({ parser: 'worker' })`: linkedom, off the main thread. */
import { serveWorkerTasks } from '../../src/util/worker-tasks.js';
import { extractHtml } from './extract-html.js';

export interface ExtractPageMessage {
  id: number;
  html: string;
  pageUrl: string;
  maxLinks: number;
}

serveWorkerTasks<ExtractPageMessage>(async (message) => extractHtml(message.html, message.pageUrl, message.maxLinks));
