/**
 * Groups of rows: one per distinct combination of the dimensions a query groups by
 * (key, identity, tag or tags, region). Cells find their group through a trie of Maps, one level
 * per dimension value, so that no key string is built per cell: readers hand over the
 * same string objects for the same dictionary code, whose hashes V8 caches.
 *
 * Readers also hand over one tag array and one Identity object per dictionary code (many cells
 * share them: one per slice, region or key), so a grouping by the tags or the identity alone
 * remembers a cell's group numbers by that object: one lookup per cell instead of a trie walk
 * per tag. A miss walks the trie, so the numbers do not depend on which objects are shared.
 */
import type { Cell, Identity, ParsedQuery } from '../types';

export interface GroupDims {
  key: boolean;
  identity: boolean;
  tag: boolean;
  tags: boolean;
  region: boolean;
}

export const groupDimsOf = (query: ParsedQuery): GroupDims => ({
  key: query.groupBy.key,
  identity: query.groupBy.identity,
  tag: query.groupBy.tag,
  tags: query.groupBy.tags,
  region: query.groupBy.region === true,
});

export const hasGroupDims = (dims: GroupDims): boolean =>
  dims.key || dims.identity || dims.tag || dims.tags || dims.region;

/** The values of the grouped dimensions of one group (only those grouped by are set). */
export interface Group {
  keyId?: string;
  identity?: Identity;
  tag?: string;
  tags?: readonly string[];
  /** tags joined with ',': the sort key of docs/api.md#order-and-limit. */
  tagsKey?: string;
  region?: string;
}

interface TrieNode {
  next?: Map<string, TrieNode>;
  /** Number of the group whose path ends here. */
  group?: number;
}

function child(node: TrieNode, part: string): TrieNode {
  const next = (node.next ??= new Map());
  let found = next.get(part);
  if (found === undefined) {
    found = {};
    next.set(part, found);
  }
  return found;
}

/**
 * Numbers groups in the order they are first met. Path: keyId, identity id, identity
 * externalId, region, then the members of the tag set (the last level, so a set and its
 * extensions cannot collide: each node holds its own group) or the single tag. Cells of
 * several dictionary codes may reach one group (a tag set in two regions under groupBy=tags).
 */
export function groupIndex(dims: GroupDims, memoize = false) {
  const root: TrieNode = {};
  const groups: Group[] = [];
  const memoBy = memoize ? memoDimension(dims) : undefined;
  const memo = new Map<object, readonly number[]>();
  /** groupsOf's answer outside the memo: the first `found` numbers (reused, never shrunk). */
  const scratch: number[] = [];
  let found = 0;
  const keep = (group: number) => void (scratch[found++] = group);

  const groupAt = (node: TrieNode, cell: Cell, tag: string | undefined): number => {
    if (node.group === undefined) {
      node.group = groups.length;
      groups.push(newGroup(cell, dims, tag));
    }
    return node.group;
  };

  const index = {
    groups,
    /** The group without any dimension (the only one when there are no group dims). */
    emptyGroup: (): number => groupAt(root, { slice: null, counts: [] }, undefined),
    /**
     * Calls `visit` with the number of every group the cell counts in: none when it has
     * no identity under groupBy=identity, no region under groupBy=region or no tag under
     * groupBy=tag, one per distinct tag under groupBy=tag. Throws when a reader left out a grouped dimension (a bug).
     */
    forEachGroupOf(cell: Cell, visit: (group: number) => void): void {
      let node = root;
      if (dims.key) {
        if (cell.keyId === undefined) throw new Error('buildRows: groupBy=key needs keyId on every cell');
        node = child(node, cell.keyId);
      }
      if (dims.identity) {
        if (cell.identity === undefined) return; // events without identity are left out
        node = child(child(node, cell.identity.id), cell.identity.externalId);
      }
      if (dims.region) {
        if (cell.region === undefined) return; // events without a region are left out
        node = child(node, cell.region);
      }
      if (dims.tags) {
        if (cell.tags === undefined) throw new Error('buildRows: groupBy=tags needs tags on every cell');
        for (const tag of cell.tags) node = child(node, tag);
      }
      if (!dims.tag) {
        visit(groupAt(node, cell, undefined));
        return;
      }
      // Tags are a sorted set; a repeat is skipped anyway so that it can never count twice.
      const tags = cell.tags ?? [];
      for (let t = 0; t < tags.length; t++) {
        const tag = tags[t]!;
        if (t > 0 && tag === tags[t - 1]) continue;
        visit(groupAt(child(node, tag), cell, tag));
      }
    },
    /**
     * The numbers forEachGroupOf visits, in its order: the first `into.count` of `into.groups`, an
     * array of the memo's or one reused by the next call (read it before calling again).
     */
    groupsOf(cell: Cell, into: { groups: readonly number[]; count: number }): void {
      const by = memoBy === 'tags' ? cell.tags : memoBy === 'identity' ? cell.identity : undefined;
      let numbers = by === undefined ? undefined : memo.get(by);
      if (numbers === undefined) {
        found = 0;
        index.forEachGroupOf(cell, keep);
        if (by === undefined) {
          into.groups = scratch;
          into.count = found;
          return;
        }
        numbers = scratch.slice(0, found);
        memo.set(by, numbers);
      }
      into.groups = numbers;
      into.count = numbers.length;
    },
  };
  return index;
}

/**
 * The one object that holds every grouped value of a cell, when there is one: its tag array under
 * groupBy=tag or groupBy=tags alone, its identity under groupBy=identity alone.
 */
function memoDimension(dims: GroupDims): 'tags' | 'identity' | undefined {
  if (dims.key || dims.region) return undefined;
  if (dims.identity) return dims.tag || dims.tags ? undefined : 'identity';
  return dims.tag !== dims.tags ? 'tags' : undefined;
}

function newGroup(cell: Cell, dims: GroupDims, tag: string | undefined): Group {
  const group: Group = {};
  if (dims.key) group.keyId = cell.keyId;
  if (dims.identity) group.identity = cell.identity;
  if (dims.tag) group.tag = tag;
  if (dims.tags && cell.tags) {
    group.tags = cell.tags;
    group.tagsKey = cell.tags.join(',');
  }
  if (dims.region) group.region = cell.region;
  return group;
}

const compareStrings = (a: string | undefined, b: string | undefined): number =>
  a === b || a === undefined || b === undefined ? 0 : a < b ? -1 : 1;

/**
 * The default order of groups (docs/api.md#order-and-limit): keyId, identity id, tag, tags joined with ',',
 * region.
 * Strings compare by UTF-16 code units (JS `<`), not by locale. Two identities with one id
 * but different externalIds are ordered by externalId, so the order is total.
 */
export function compareGroups(a: Group, b: Group): number {
  return (
    compareStrings(a.keyId, b.keyId) ||
    compareStrings(a.identity?.id, b.identity?.id) ||
    compareStrings(a.identity?.externalId, b.identity?.externalId) ||
    compareStrings(a.tag, b.tag) ||
    compareStrings(a.tagsKey, b.tagsKey) ||
    compareStrings(a.region, b.region)
  );
}
