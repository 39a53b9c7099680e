/**
 * English function words. They carry no topic, and without corpus statistics (no idf) they would
 * dominate every vector, so they are dropped before features are made.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are aren as at be because been before being below
between both but by can cannot could couldn d did didn do does doesn doing don down during each either
else etc even ever few for from further had hadn has hasn have haven having he her here hers herself him
himself his how however i if in into is isn it its itself just ll m may me might more most must mustn my
myself neither no nor not now o of off often on once only or other our ours ourselves out over own re s
same shall shan she should shouldn so some such t than that the their theirs them themselves then there
these they this those through thus to too under until up upon us ve very via was wasn we were weren what
when where whether which while who whom whose why will with within without won would wouldn y yet you
your yours yourself yourselves`.split(/\s+/),
);
