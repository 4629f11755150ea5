/** Where the search index's objects live in the modules bucket (apart, so naming it loads no engine). */
export const SEARCH_INDEX_PREFIX = 'search-index/';
