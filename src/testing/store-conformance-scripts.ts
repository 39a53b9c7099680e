/**
 * Scripts part of the Store conformance suite: `searchText` finds words inside runs of scripts
 * written without spaces (Chinese, Japanese, Korean particles, Thai). The sentences were written
 * for this suite (no third-party text), each with its English meaning; every query is a part of a
 * run, never a whole run, so a tokenizer that keeps a run as one word finds nothing.
 */
import type { RetrievalStore } from '../ports/store.js';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DatastoreRecord } from '../ports/records.js';
import { makeChunks, makeDatasource, makeDatastore } from './fixtures.js';
import type { StoreSuiteContext } from './store-harness.js';

/** [sentence, its meaning]. */
const DOCUMENTS: Record<string, readonly [string, string]> = {
  'zh-capital': ['北京是中国的首都，有很多历史古迹。', 'Beijing is the capital of China and has many historic sites.'],
  'zh-panda': ['熊猫主要生活在四川的竹林里。', 'Pandas live mainly in the bamboo forests of Sichuan.'],
  'zh-code': ['学习编程需要耐心和大量练习。', 'Learning to program takes patience and a lot of practice.'],
  'zh-river': ['长江是亚洲最长的河流。', 'The Yangtze is the longest river in Asia.'],
  'zh-tea': ['绿茶在中国南方广泛种植。', 'Green tea is grown widely in southern China.'],
  'ja-tower': ['東京タワーは東京の有名な観光地です。', 'Tokyo Tower is a famous sight of Tokyo.'],
  'ja-fuji': ['富士山は日本で一番高い山です。', 'Mount Fuji is the highest mountain in Japan.'],
  'ja-sushi': ['寿司は新鮮な魚とご飯で作ります。', 'Sushi is made with fresh fish and rice.'],
  'ja-train': ['新幹線はとても速くて便利な電車です。', 'The Shinkansen is a very fast and convenient train.'],
  'ja-cherry': ['桜の花は春に咲きます。', 'Cherry blossoms bloom in spring.'],
  'ko-capital': ['서울은 한국의 수도입니다.', 'Seoul is the capital of Korea.'],
  'ko-kimchi': ['김치는 배추와 고춧가루로 만듭니다.', 'Kimchi is made with napa cabbage and chili powder.'],
  'ko-island': ['제주도는 아름다운 섬입니다.', 'Jeju is a beautiful island.'],
  'ko-river': ['한강은 서울을 가로질러 흐릅니다.', 'The Han river flows across Seoul.'],
  'ko-martial': ['태권도는 한국의 전통 무술입니다.', 'Taekwondo is a traditional Korean martial art.'],
  'th-capital': ['กรุงเทพเป็นเมืองหลวงของประเทศไทย', 'Bangkok is the capital of Thailand.'],
  'th-elephant': ['ช้างเป็นสัตว์ประจำชาติไทย', 'The elephant is the national animal of Thailand.'],
  'th-soup': ['ต้มยำกุ้งเป็นอาหารที่มีชื่อเสียง', 'Tom yum goong is a famous dish.'],
  'en-tea': ['Green tea grows on hillsides in the south.', 'An English control.'],
};

/** [query, the document that must come first]. */
const KNOWN_ANSWERS: readonly (readonly [string, string])[] = [
  ['熊猫', 'zh-panda'],
  ['最长的河流', 'zh-river'],
  ['编程', 'zh-code'],
  ['绿茶种植', 'zh-tea'],
  ['首都', 'zh-capital'],
  ['富士山', 'ja-fuji'],
  ['新幹線', 'ja-train'],
  ['寿司', 'ja-sushi'],
  ['桜', 'ja-cherry'],
  ['タワー', 'ja-tower'],
  ['김치', 'ko-kimchi'],
  ['제주도', 'ko-island'],
  ['태권도', 'ko-martial'],
  ['한강', 'ko-river'],
  ['서울 수도', 'ko-capital'],
  ['ช้าง', 'th-elephant'],
  ['ต้มยำ', 'th-soup'],
  ['เมืองหลวง', 'th-capital'],
  ['green tea', 'en-tea'],
];

export function describeScriptConformance(context: StoreSuiteContext<RetrievalStore>): void {
  const store = () => context.store();

  describe('searchText in every script', () => {
    let datastore: DatastoreRecord;
    const chunkOf = new Map<string, string>();

    beforeEach(async () => {
      datastore = makeDatastore({ id: 'ds-scripts', name: 'Scripts' });
      await store().createDatastore(datastore);
      for (const [name, [sentence]] of Object.entries(DOCUMENTS)) {
        const source = makeDatasource(datastore, { id: `src-${name}`, name });
        await store().createDatasource(source);
        const [chunk] = makeChunks(source, [sentence]);
        await store().replaceChunks(source.id, [chunk!]);
        chunkOf.set(chunk!.id, name);
      }
    });

    it.each(KNOWN_ANSWERS)('finds %s inside a longer run', async (query, expected) => {
      const hits = await store().searchText({ datastoreId: datastore.id, query, topK: 3 });
      expect(hits.map((hit) => chunkOf.get(hit.id))[0]).toBe(expected);
    });
  });
}
