/** Extraction thread of `webLoader({ parser: 'worker' })`: the HTML extractor, off the main thread. */
import { serveWorkerTasks } from '../kit/worker-tasks.js';
import { extractHtml } from '../loaders/html/extract-html.js';

export interface ExtractPageMessage {
  id: number;
  html: string;
  pageUrl: string;
  maxLinks: number;
}

serveWorkerTasks<ExtractPageMessage>(async (message) =>
  extractHtml(message.html, { pageUrl: message.pageUrl, maxLinks: message.maxLinks }),
);
