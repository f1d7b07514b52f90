// Tables the migrations create by hand and Prisma must leave alone: the FTS5 index over Memory and its
// shadow tables (Prisma cannot model virtual tables, so a diff would otherwise propose to drop them).
// On Postgres, the search index's tables, which server/search/pg-index.ts creates by itself
// (PG_SEARCH_TABLES), and the cluster's lease and node tables (server/cluster/tables.ts).
export const externalTables = [
  "MemoryFts",
  "MemoryFts_config",
  "MemoryFts_data",
  "MemoryFts_docsize",
  "MemoryFts_idx",
  "SearchMeta",
  "SearchCursor",
  "SearchDoc",
  "SearchCycle",
  "SearchCycleModel",
  "ClusterNode",
  "SessionLease",
];
