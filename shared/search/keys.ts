/** Where the search index's objects live in the modules bucket (apart, so naming it loads no engine). */
export const SEARCH_INDEX_PREFIX = 'search-index/';

/** Sort keys of the items that name a search document: the stream's filter on AWS (infra/cdk). */
export const INDEXED_SORT_KEYS = ['GUIDE', 'STEP', 'WIKI'] as const;

/** Every index of the OpenSearch backend starts so (decision 292); the CDK grants these only. */
export const OPENSEARCH_INDEX_PREFIX = 'stepwise-search-';
