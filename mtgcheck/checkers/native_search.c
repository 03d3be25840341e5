/* The compiled graph search: the part of the program that is the same for every relation.

   native.py prints, before this text, the relation of one configuration (STEP, settle, the
   properties) and the tables this text reads: the layout's symmetry declarations (canon) and the
   packing of a state to its declared ranges (checkers/packing.py: pack, unpack, W).  The search runs in the
   order of graph.check (states in the order reached, transitions in catalogue order), so every
   figure, witness and trace is the interpreter's.

   What it keeps per visited state (the visited set; see "The store" below):
     - its identity: 8 bytes.  Exact (the default): the root of the state's canonical key,
       tree-compressed; with fingerprints: a 64-bit hash of that key;
     - its parent's index (4 bytes) and the transition it was reached by (2 bytes);
     - its slot in the hash table of identities (4 bytes a slot, at most 7/10 full).
   A visited state's own values are not kept: they are the start replayed along the parent
   pointers (replay()), which is how a report reads the few it shows.  The states still to expand
   (the frontier) are a queue of packed states, in memory up to a budget and in a file past it. */

#include <stdio.h>
#include <unistd.h>
#include <fcntl.h>
#include <pthread.h>

static int is_plane_sourced(int kind) {
  for (int i = 0; i < NPLANE_SOURCED; i++) if (PLANE_SOURCED[i] == kind) return 1;
  return 0;
}

/* --- the canonical key (symmetry.canonical's reduction, from the layout's declarations) --- */

static int row_less(const int *s, int x, int y) {
  for (int c = 0; c < NCARD; c++) {
    int u = s[CARD_OFF[c] + x], v = s[CARD_OFF[c] + y];
    if (u != v) return u < v;
  }
  return 0;
}

static int renumber_oids(int *o) {
  static _Thread_local int rank[MAXV];  /* per thread: the expansion runs on several */
  static _Thread_local int seen[MAXV];
  static _Thread_local int stamp = 0;
  stamp++;
  int fresh = o[FRESH], next = 1;
  if (fresh < 0 || fresh >= MAXV) return -1;
  for (int i = 0; i < NOIDS; i++) {
    int v = o[OIDS[i]];
    if (v < 0 || v >= MAXV) return -1;
    if (v == 0 || v == fresh || seen[v] == stamp) continue;
    seen[v] = stamp; rank[v] = next++;
  }
  seen[fresh] = stamp; rank[fresh] = next;
  for (int i = 0; i < NOIDS; i++) { int v = o[OIDS[i]]; if (v) o[OIDS[i]] = rank[v]; }
  return 0;
}

static int renumber_turns(int *o) {
  int vals[NTURNS > 0 ? NTURNS : 1], n = 0;
  for (int i = 0; i < NTURNS; i++) {
    int v = o[TURNS[i]], k;
    if (v == 0) continue;
    for (k = 0; k < n && vals[k] != v; k++) ;
    if (k == n) vals[n++] = v;
  }
  for (int i = 1; i < n; i++) { int v = vals[i], k = i; while (k > 0 && vals[k - 1] > v) { vals[k] = vals[k - 1]; k--; } vals[k] = v; }
  for (int i = 0; i < NTURNS; i++) {
    int v = o[TURNS[i]];
    if (v == 0) continue;
    int k = 0; while (vals[k] != v) k++;
    o[TURNS[i]] = k + 1;
  }
  return 0;
}

int canon(const int *s, int *o, int turns) {
  memcpy(o, s, F * sizeof(int));
  if (NG) {
    int perm[N > 0 ? N : 1], changed = 0;
    for (int j = 0; j < N; j++) perm[j] = j;
    for (int g = 0; g < NG; g++) {
      int lo = GROUP_START[g], len = GROUP_START[g + 1] - lo, keyed[N > 0 ? N : 1];
      for (int k = 0; k < len; k++) keyed[k] = GROUP_SLOTS[lo + k];
      for (int i = 1; i < len; i++) {  /* a stable insertion sort by the slots' rows */
        int x = keyed[i], k = i;
        while (k > 0 && row_less(s, x, keyed[k - 1])) { keyed[k] = keyed[k - 1]; k--; }
        keyed[k] = x;
      }
      for (int k = 0; k < len; k++) { perm[keyed[k]] = GROUP_SLOTS[lo + k]; changed |= keyed[k] != GROUP_SLOTS[lo + k]; }
    }
    if (changed) {
      for (int c = 0; c < NCARD; c++) for (int j = 0; j < N; j++) o[CARD_OFF[c] + perm[j]] = s[CARD_OFF[c] + j];
      /* the references are renamed where they now stand (a card's target moved with the card) */
      for (int i = 0; i < NREFS; i++) { int v = o[REFS[i]]; o[REFS[i]] = v < P ? v : P + perm[v - P]; }
      for (int i = 0; i < NSLOTS; i++) { int v = o[SLOTS[i]]; o[SLOTS[i]] = v >= 0 ? perm[v] : v; }
      for (int i = 0; i < NSOURCES; i++) {
        int kind = o[SOURCE_KIND[i]], v = o[SOURCES[i]];
        o[SOURCES[i]] = (kind && !is_plane_sourced(kind)) ? perm[v] : v;
      }
    }
  }
  if (renumber_oids(o)) return -1;
  if (turns) renumber_turns(o);
  return 0;
}

void canonical(const int *s, int *o, int turns) { if (canon(s, o, turns)) memcpy(o, s, F * sizeof(int)); }

typedef unsigned long long u64;
typedef unsigned int u32;

/* splitmix64's finalizer: every bit of the input moves about half of the output's. */
static inline u64 mix(u64 x) {
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL; x ^= x >> 27; x *= 0x94d049bb133111ebULL; return x ^ (x >> 31);
}

/* A fingerprint of a packed key: each word mixed with its place, then into the running hash. */
static u64 fingerprint(const u64 *w) {
  u64 h = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < W; i++) h = mix(h ^ mix(w[i] + 0x632be59bd9b4e019ULL * (u64)(i + 1)));
  return h;
}

/* --- growable arrays, counted --------------------------------------------------------------- */

/* realloc to cap elements of size sz (first of them at first), counting the bytes in *held (what
   --max-memory bounds). */
static int grow_from(void **p, long *cap, long need, size_t sz, long *held, long first) {
  if (need <= *cap) return 0;
  long c = *cap ? *cap : first;
  while (c < need) c *= 2;
  void *q = realloc(*p, (size_t)c * sz);
  if (!q) return 1;
  *held += (c - *cap) * (long)sz;
  *p = q; *cap = c;
  return 0;
}

static int grow(void **p, long *cap, long need, size_t sz, long *held) { return grow_from(p, cap, need, sz, held, 1024); }

/* An open-addressing index of 32-bit entries (an item's number + 1; 0 empty), at most 7/10 full,
   doubled and refilled from the items' hashes (key(i)) when it would be fuller. */
typedef struct { u32 *slot; long cap; } Index;

static int index_grow(Index *x, long items, u64 (*key)(void *, long), void *ctx, long *held) {
  if (10 * (items + 1) <= 7 * x->cap) return 0;
  long c = x->cap ? x->cap * 2 : 1024;
  while (10 * (items + 1) > 7 * c) c *= 2;
  u32 *t = (u32 *)calloc((size_t)c, sizeof(u32));
  if (!t) return 1;
  for (long i = 0; i < items; i++) {
    long s = (long)(mix(key(ctx, i)) & (u64)(c - 1));
    while (t[s]) s = (s + 1) & (c - 1);
    t[s] = (u32)(i + 1);
  }
  free(x->slot);
  *held += (c - x->cap) * (long)sizeof(u32);
  x->slot = t; x->cap = c;
  return 0;
}

/* --- the store: tree compression of the keys (exact), or fingerprints -----------------------

   Tree compression (as in LTSmin's, Laarman et al., "Parallel recursive state compression for
   free", 2011): the W words of a packed key are the leaves of a fixed binary tree; a node is
   a leaf's word or the pair (left id, right id) of its children, kept once in a table of nodes
   and named by its number there.  A key is the pair of its root's children: 8 bytes, equal for
   two keys exactly when their words are equal (by induction on the tree: a node's number names
   one content at its place).  States of one game share most of their subtrees, so a new state
   adds a few nodes, not W words.  A successor's tree is rebuilt only where its words differ from
   the state it came from (whose tree is read back once per expansion). */

#define NPOS (2 * W - 1)
typedef struct {
  u64 *node; long n_nodes, node_cap;  /* node contents, by number */
  Index nodes;                        /* node contents -> number */
  int left[NPOS], right[NPOS], word[NPOS];  /* the tree, children before parents: root NPOS-1 */
  u32 id[NPOS];                       /* the ids of the state being expanded, per place */
  u64 words[W];                       /* and its key's words */
} Tree;

static u64 node_key(void *ctx, long i) { return ((Tree *)ctx)->node[i]; }

static int tree_place(Tree *t, int lo, int hi, int *next) {
  int l = -1, r = -1;
  if (hi - lo > 1) { int m = lo + (hi - lo + 1) / 2; l = tree_place(t, lo, m, next); r = tree_place(t, m, hi, next); }
  int p = (*next)++;
  t->left[p] = l; t->right[p] = r; t->word[p] = hi - lo > 1 ? -1 : lo;
  return p;
}

/* The number of node content v (added if new); -1 when out of memory or past 2^32 - 2 nodes. */
static long intern(Tree *t, u64 v, long *held) {
  long mask = t->nodes.cap - 1, s = (long)(mix(v) & (u64)mask);
  for (u32 e; (e = t->nodes.slot[s]); s = (s + 1) & mask)
    if (t->node[e - 1] == v) return e - 1;
  if (t->n_nodes >= 0xfffffffeL) return -1;
  if (grow((void **)&t->node, &t->node_cap, t->n_nodes + 1, sizeof(u64), held)) return -1;
  long id = t->n_nodes++;
  t->node[id] = v;
  t->nodes.slot[s] = (u32)(id + 1);
  if (index_grow(&t->nodes, t->n_nodes, node_key, t, held)) return -1;
  return id;
}

/* Read back the tree of identity ident into t->id and t->words (the state being expanded). */
static void tree_read(Tree *t, u64 ident) {
  int root = NPOS - 1;
  if (W == 1) { t->words[0] = ident; return; }
  t->id[t->left[root]] = (u32)(ident >> 32); t->id[t->right[root]] = (u32)ident;
  for (int p = root - 1; p >= 0; p--) {  /* parents come after their children: walk down */
    u64 v = t->node[t->id[p]];
    if (t->word[p] >= 0) t->words[t->word[p]] = v;
    else { t->id[t->left[p]] = (u32)(v >> 32); t->id[t->right[p]] = (u32)v; }
  }
}

/* The identity of key kw, its new nodes added; rebuilt where kw differs from t->words (base
   nonzero: the tree read by tree_read; zero: the whole tree).  -1 in *err on failure. */
static u64 tree_ident(Tree *t, const u64 *kw, int base, long *held, int *err) {
  u32 ids[NPOS];
  unsigned char diff[NPOS];
  if (W == 1) return kw[0];
#ifdef __GNUC__
  /* The changed leaves' slots, asked for at once: their cache misses overlap (best effort). */
  for (int w = 0; w < W; w++)
    if (!base || kw[w] != t->words[w]) __builtin_prefetch(&t->nodes.slot[mix(kw[w]) & (u64)(t->nodes.cap - 1)]);
#endif
  for (int p = 0; p < NPOS - 1; p++) {
    if (t->word[p] >= 0) {
      int w = t->word[p];
      diff[p] = !base || kw[w] != t->words[w];
      if (diff[p]) { long id = intern(t, kw[w], held); if (id < 0) { *err = 1; return 0; } ids[p] = (u32)id; }
      else ids[p] = t->id[p];
    } else {
      diff[p] = diff[t->left[p]] | diff[t->right[p]];
      if (diff[p]) {
        long id = intern(t, (u64)ids[t->left[p]] << 32 | ids[t->right[p]], held);
        if (id < 0) { *err = 1; return 0; }
        ids[p] = (u32)id;
      } else ids[p] = t->id[p];
    }
  }
  return (u64)ids[t->left[NPOS - 1]] << 32 | ids[t->right[NPOS - 1]];
}

/* --- the frontier: a queue of packed states, in memory up to a budget, then in a file ------- */

#define SPILL_CHUNK 4096  /* states read or written at once */
typedef struct {
  u64 *ring; long cap, limit, head, count;     /* in memory: count states from head (mod cap) */
  int fd; long disk_head, disk_tail, punched;  /* in the file: states disk_head..disk_tail */
  u64 *wbuf, *rbuf; long wn, rpos, rn;         /* write buffer (wn states), read buffer */
  long size, peak, spilled;                    /* states queued now, at most, ever through the file */
} Fifo;

static int fifo_push(Fifo *q, const u64 *w, const char *spill_dir, long *held) {
  if (++q->size > q->peak) q->peak = q->size;
  int on_disk = q->fd >= 0 && (q->disk_tail > q->disk_head || q->wn || q->rpos < q->rn);
  if (!on_disk && q->count == q->cap && q->cap < q->limit) {  /* grow the ring, unwrapped */
    long c = q->cap ? q->cap * 2 : 64;
    if (c > q->limit) c = q->limit;
    u64 *r = (u64 *)malloc((size_t)c * W * sizeof(u64));
    if (!r) return 1;
    for (long i = 0; i < q->count; i++) memcpy(r + i * W, q->ring + ((q->head + i) % q->cap) * W, W * sizeof(u64));
    free(q->ring);
    *held += (c - q->cap) * (long)(W * sizeof(u64));
    q->ring = r; q->cap = c; q->head = 0;
  }
  if (!on_disk && q->count < q->cap) {
    memcpy(q->ring + ((q->head + q->count) % q->cap) * W, w, W * sizeof(u64));
    q->count++;
    return 0;
  }
  if (q->fd < 0) {  /* the first spill: an unnamed file in spill_dir (gone when the search ends) */
    char path[4096];
    snprintf(path, sizeof path, "%s/mtgcheck-frontier-XXXXXX", spill_dir);
    q->fd = mkstemp(path);
    if (q->fd < 0) return 5;
    unlink(path);
    q->wbuf = (u64 *)malloc(SPILL_CHUNK * W * sizeof(u64)); q->rbuf = (u64 *)malloc(SPILL_CHUNK * W * sizeof(u64));
    if (!q->wbuf || !q->rbuf) return 1;
    *held += 2L * SPILL_CHUNK * W * (long)sizeof(u64);
  }
  memcpy(q->wbuf + q->wn * W, w, W * sizeof(u64));
  if (++q->wn == SPILL_CHUNK) {
    size_t n = (size_t)q->wn * W * sizeof(u64);
    if (pwrite(q->fd, q->wbuf, n, (off_t)q->disk_tail * W * (off_t)sizeof(u64)) != (ssize_t)n) return 5;
    q->disk_tail += q->wn; q->spilled += q->wn; q->wn = 0;
  }
  return 0;
}

/* The oldest state of the queue into w: 0, or 1 when it is empty, or 5 on a file error. */
static int fifo_pop(Fifo *q, u64 *w) {
  if (!q->size) return 1;
  q->size--;
  if (q->count) {
    memcpy(w, q->ring + q->head * W, W * sizeof(u64));
    q->head = (q->head + 1) % q->cap; q->count--;
    return 0;
  }
  if (q->rpos == q->rn) {
    q->rpos = q->rn = 0;
    if (q->disk_head == q->disk_tail) {  /* the file is read: what is buffered comes next */
      if (q->disk_tail && ftruncate(q->fd, 0) == 0) q->disk_head = q->disk_tail = q->punched = 0;
      memcpy(q->rbuf, q->wbuf, (size_t)q->wn * W * sizeof(u64));
      q->spilled += q->wn; q->rn = q->wn; q->wn = 0;
    } else {
      long n = q->disk_tail - q->disk_head;
      if (n > SPILL_CHUNK) n = SPILL_CHUNK;
      size_t bytes = (size_t)n * W * sizeof(u64);
      if (pread(q->fd, q->rbuf, bytes, (off_t)q->disk_head * W * (off_t)sizeof(u64)) != (ssize_t)bytes) return 5;
      q->disk_head += n; q->rn = n;
#ifdef FALLOC_FL_PUNCH_HOLE
      /* give back the disk the read part held (best effort; the file is sparse after) */
      if ((q->disk_head - q->punched) * W * (long)sizeof(u64) >= (64L << 20)) {
        fallocate(q->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)q->punched * W * (off_t)sizeof(u64),
                  (off_t)(q->disk_head - q->punched) * W * (off_t)sizeof(u64));
        q->punched = q->disk_head;
      }
#endif
    }
  }
  memcpy(w, q->rbuf + q->rpos * W, W * sizeof(u64));
  q->rpos++;
  return 0;
}


typedef struct {
  u32 *parent; unsigned short *via; long *sources; long *targets; int *edge_via;
  long n_states, n_edges, complete, overflow, queue_head_depth, error, stopped, bad_entry, distinct_edges, bytes,
    max_depth, nodes, frontier_peak, spilled, batch_bytes;
} Result;

/* Why a search stopped (Result.stopped). */
#define STOP_DONE 0
#define STOP_STATES 1
#define STOP_TIME 2
#define STOP_MEMORY 3
#define STOP_VIOLATION 4
/* Result.error: 1 out of memory, 2 an id or turn past MAXV, 3 a value outside its packed range
   (bad_entry), 4 more states or nodes than 32-bit numbers hold, 5 the frontier's file failed,
   6 the queue ran out before the states did (a fault of this program). */

typedef struct { u64 *ident; u32 *parent; unsigned short *via; long n, cap; Index index; } Visited;

static u64 ident_key(void *ctx, long i) { return ((Visited *)ctx)->ident[i]; }

/* --- expansion: the successors of a batch of states, by one thread or several ----------------

   A state's successors depend on the state alone, so the states of a batch are expanded apart,
   in chunks any thread may take, and the search then takes them in the queue's order, exactly as
   it would expand them one at a time: the numbering, the parents, the witnesses and the traces do
   not depend on the threads.  A thread does the costly part of a state's turn: the transitions
   and the state-based actions, the canonical key packed (and with fingerprints hashed), the
   successor packed, and the properties' outcomes.  The look-ups and additions to the visited set,
   the queue and the counts stay in the search's thread, which meanwhile lets the other threads
   expand the next batch (two batches in turn), and then helps them.  A successor is kept as those
   results (some hundred bytes), not as its ints, so that a batch stays in the caches. */

/* MAX_THREADS, CHUNK and NCHUNK are printed before this text (checkers/native.py). */
#define BATCH (CHUNK * NCHUNK)
#define NP (NS + NT + 1)

/* One chunk's successors, in order: per successor its transition, its packed canonical key (kw,
   the exact store's input) and identity (fingerprints), the successor packed (bw, what the queue
   keeps), whether it overflowed, each property's outcome (pw: witnessed, pok: held), and what
   failed: kerr keying it (2 an id or turn past MAXV, -1 - e: entry e outside its packed range),
   berr packing the successor (-1 - e, or 0), raised only where the one-at-a-time search would. */
typedef struct {
  int *t, *kerr, *berr; unsigned char *over, *pw, *pok; u64 *kw, *bw, *id;
  long n, cap, held;
} Succs;

/* A batch: its states, per state its successors' range in its chunk's list, and the chunks taken
   and finished (under the pool's lock). */
typedef struct {
  u64 *aw; long n, aw_cap;              /* the states, packed as the queue keeps them */
  long begin[BATCH], end[BATCH];
  unsigned char skip[BATCH];            /* a state not expanded: the game is over, or past the turn bound */
  Succs out[NCHUNK];
  int next, finished, failed;
} Slot;

typedef struct {
  Slot *slot;  /* the batch being expanded */
  pthread_mutex_t mu; pthread_cond_t go, done;
  long gen; int quit, threaded;
  int symmetry, turns, fingerprints; long max_turn;
} Pool;

static int succs_grow(Succs *o, long need) {
  long c[9];
  for (int i = 0; i < 9; i++) c[i] = o->cap;
  /* a chunk's successors: room for 64 at first, doubled as needed (a small search holds little) */
#define GROW(ptr, k, size) grow_from((void **)&o->ptr, &c[k], need, (size), &o->held, 64)
  if (GROW(t, 0, sizeof(int)) || GROW(kerr, 1, sizeof(int)) || GROW(berr, 2, sizeof(int)) || GROW(over, 3, 1)
      || GROW(pw, 4, NP) || GROW(pok, 5, NP) || GROW(kw, 6, sizeof(u64) * W) || GROW(bw, 7, sizeof(u64) * W)
      || GROW(id, 8, sizeof(u64))) return 1;
#undef GROW
  o->cap = c[0];
  return 0;
}

static void succs_free(Succs *o) {
  free(o->t); free(o->kerr); free(o->berr); free(o->over); free(o->pw); free(o->pok); free(o->kw); free(o->bw); free(o->id);
}

static long n_chunks(const Slot *x) { return (x->n + CHUNK - 1) / CHUNK; }

/* The successors of chunk c of batch x; 0, or 1 when out of memory. */
static int expand_chunk(const Pool *p, Slot *x, long c) {
  Succs *o = &x->out[c];
  int a[F], bt[F], k2[F];
  long hi = (c + 1) * CHUNK < x->n ? (c + 1) * CHUNK : x->n;
  o->n = 0;
  for (long i = c * CHUNK; i < hi; i++) {
    unpack(x->aw + i * W, a);
    x->begin[i] = o->n;
    x->skip[i] = a[GAME_OVER] || (p->max_turn >= 0 && a[TURN] > p->max_turn);
    if (!x->skip[i]) {
      for (int t = 0; t < T; t++) {
        if (!STEP[t](a, bt)) continue;
        if (succs_grow(o, o->n + 1)) return 1;
        long m = o->n++, bad = -1;
        o->t[m] = t; o->kerr[m] = 0; o->berr[m] = 0; o->id[m] = 0; o->over[m] = bt[OVERFLOW] != 0;
        unsigned char *pw = o->pw + m * NP, *pok = o->pok + m * NP;
        state_props(bt, pw, pok);
        TRANS_PROPS[t](a, bt, pw + NS, pok + NS);
        if (pack(bt, o->bw + m * W, &bad)) o->berr[m] = (int)(-1 - bad);
        if (p->symmetry) { if (canon(bt, k2, p->turns)) { o->kerr[m] = 2; continue; } } else memcpy(k2, bt, sizeof k2);
        if (pack(k2, o->kw + m * W, &bad)) { o->kerr[m] = (int)(-1 - bad); continue; }
        if (p->fingerprints) o->id[m] = fingerprint(o->kw + m * W);
      }
    }
    x->end[i] = o->n;
  }
  return 0;
}

static void pool_lock(Pool *p) { if (p->threaded) pthread_mutex_lock(&p->mu); }
static void pool_unlock(Pool *p) { if (p->threaded) pthread_mutex_unlock(&p->mu); }

/* Take the chunks of batch x no thread has taken yet, one at a time, until none is left. */
static void take_chunks(Pool *p, Slot *x) {
  for (;;) {
    pool_lock(p);
    long c = x->next < n_chunks(x) ? x->next++ : -1;
    pool_unlock(p);
    if (c < 0) return;
    int failed = expand_chunk(p, x, c);
    pool_lock(p);
    if (failed) x->failed = 1;
    if (++x->finished == n_chunks(x) && p->threaded) pthread_cond_broadcast(&p->done);
    pool_unlock(p);
  }
}

/* Batch x, whose states are in place, offered to every thread. */
static void pool_offer(Pool *p, Slot *x, long n) {
  pool_lock(p);
  x->n = n; x->next = x->finished = x->failed = 0;
  p->slot = x; p->gen++;
  if (p->threaded) pthread_cond_broadcast(&p->go);
  pool_unlock(p);
}

/* Help expand batch x until every chunk of it is finished; 1 if one ran out of memory. */
static int pool_finish(Pool *p, Slot *x) {
  take_chunks(p, x);
  pool_lock(p);
  while (x->finished < n_chunks(x)) pthread_cond_wait(&p->done, &p->mu);  /* only when threaded */
  int failed = x->failed;
  pool_unlock(p);
  return failed;
}

static void *pool_thread(void *arg) {
  Pool *p = (Pool *)arg;
  long seen = 0;
  for (;;) {
    pthread_mutex_lock(&p->mu);
    while (p->gen == seen && !p->quit) pthread_cond_wait(&p->go, &p->mu);
    int quit = p->quit;
    Slot *x = p->slot;
    seen = p->gen;
    pthread_mutex_unlock(&p->mu);
    if (quit) return NULL;
    take_chunks(p, x);
  }
}

/* --- the search ------------------------------------------------------------------------------ */

/* The search.  Per property (the state properties first, then the transition properties):
   witnessed[k] counts as graph.check counts; the first violation is the state viol_state[k]
   (state properties, viol_via[k] = -1) or the edge out of viol_state[k] by transition
   viol_via[k], found at depth viol_depth[k]; -1 if none.  fired[t]: times transition t fired.
   fingerprints: the visited set keeps 64-bit hashes of the keys, not the keys (see the top).
   frontier_bytes: the memory the queue may take before it spills into a file in spill_dir.
   Edges are kept only with keep_edges (their distinct count always); max_bytes (0: none) bounds
   what the search holds. */
Result *search(const int *s0, long max_states, double timeout, int first_violation, long max_turn,
               int symmetry, int turns, long *witnessed, long *viol_state, long *viol_via, long *viol_depth,
               long *fired, int keep_edges, long max_bytes, int fingerprints, long frontier_bytes,
               const char *spill_dir, int threads) {
  Result *r = (Result *)calloc(1, sizeof(Result));
  Tree *tree = (Tree *)calloc(1, sizeof(Tree));
  Visited v = {0};
  Fifo q = {0};
  long held = (long)sizeof(Tree), ecap = 0, head = 0, min_viol = -1, depth = 0, level_end = 0;
  int k2[F], err = 0;
  u64 kw[W], aw[W];
  long out[T > 0 ? T : 1];
  Slot *slots[2] = {NULL, NULL};       /* two batches: one taken in order while the next is expanded */
  long counted = 0;                     /* the batches' bytes already in held */
  Pool pool;
  pthread_t pool_th[MAX_THREADS];
  int n_started = 0, nt = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
  unsigned char w[NS + NT + 1], ok[NS + NT + 1], violated[NS + NT + 1];
  struct timespec t0, now;
  memset(&pool, 0, sizeof pool);
  pool.symmetry = symmetry; pool.turns = turns; pool.fingerprints = fingerprints; pool.max_turn = max_turn;
  if (!r) return NULL;
  r->bad_entry = -1;
  if (!tree) { r->error = 1; return r; }
  q.fd = -1;
  q.limit = frontier_bytes / (long)(W * sizeof(u64));
  if (q.limit < 64) q.limit = 64;
  memset(violated, 0, sizeof violated);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (!fingerprints) {
    int next = 0;
    tree_place(tree, 0, W, &next);
    if (index_grow(&tree->nodes, 0, node_key, tree, &held)) { r->error = 1; goto done; }
  }
  if (index_grow(&v.index, 0, ident_key, &v, &held)) { r->error = 1; goto done; }

#define STATE_OUTCOMES(j, d, w, ok) do { \
    for (int k = 0; k < NS; k++) if ((w)[k] && !violated[k]) witnessed[k]++; \
    for (int k = 0; k < NS; k++) if (!(ok)[k] && !violated[k]) { violated[k] = 1; viol_state[k] = (j); viol_via[k] = -1; \
      viol_depth[k] = (d); if (min_viol < 0 || (d) < min_viol) min_viol = (d); } \
  } while (0)
#define FAIL(code) do { r->error = (code); goto done; } while (0)

  /* The identity of the key of state s into *id (k2 and kw hold the key). */
#define IDENTIFY(s, id) do { \
    if (symmetry) { if (canon((s), k2, turns)) FAIL(2); } else memcpy(k2, (s), sizeof k2); \
    if (pack(k2, kw, &r->bad_entry)) FAIL(3); \
    *(id) = fingerprints ? fingerprint(kw) : tree_ident(tree, kw, expanding, &held, &err); \
    if (err) FAIL(1); \
  } while (0)

  int expanding = 0;  /* whether tree holds the tree of the state being expanded */
  for (int k = 0; k < 2; k++) {
    if (!(slots[k] = (Slot *)calloc(1, sizeof(Slot)))) FAIL(1);
    held += (long)sizeof(Slot);
  }
  /* The threads past the search's own, started once (none for one thread; fewer if they cannot
     all start: the search's thread then expands what they would have). */
  if (nt > 1 && pthread_mutex_init(&pool.mu, NULL) == 0) {
    pthread_cond_init(&pool.go, NULL); pthread_cond_init(&pool.done, NULL);
    pool.threaded = 1;
    for (int j = 1; j < nt; j++) {
      if (pthread_create(&pool_th[j], NULL, pool_thread, &pool) != 0) break;
      n_started++;
    }
  }
  u64 id0;
  IDENTIFY(s0, &id0);
  if (grow((void **)&v.ident, &v.cap, 1, sizeof(u64), &held)) FAIL(1);
  {
    long pc = 0, vc = 0;
    if (grow((void **)&v.parent, &pc, 1, sizeof(u32), &held) || grow((void **)&v.via, &vc, 1, sizeof(short), &held)) FAIL(1);
  }
  v.ident[0] = id0; v.parent[0] = 0xffffffffu; v.via[0] = 0xffff; v.n = 1;
  v.index.slot[(long)(mix(id0) & (u64)(v.index.cap - 1))] = 1;
  r->n_states = 1;
  if (pack(s0, aw, &r->bad_entry)) FAIL(3);
  { int e0 = fifo_push(&q, aw, spill_dir, &held); if (e0) FAIL(e0); }
  if (s0[OVERFLOW]) r->overflow = 1;
  state_props(s0, w, ok);
  STATE_OUTCOMES(0, 0, w, ok);
  r->complete = 1;
  /* Batches of the queue's states: while one is taken in order (below), the next, popped from
     the queue first, is expanded by the other threads; the search's thread then helps finish it.
     The queue's order is kept: a batch is the states that follow the one before it. */
  Slot *cur = slots[0], *nxt = slots[1];
  {
    long nb = q.size < BATCH ? q.size : BATCH;
    if (grow((void **)&cur->aw, &cur->aw_cap, nb * W, sizeof(u64), &held)) FAIL(1);
    for (long k = 0; k < nb; k++) { int e = fifo_pop(&q, cur->aw + k * W); if (e) FAIL(e == 1 ? 6 : e); }
    pool_offer(&pool, cur, nb);
    if (pool_finish(&pool, cur)) FAIL(1);
  }
  while (cur->n > 0) {
    long nb = q.size < BATCH ? q.size : BATCH, cur_n = cur->n;
    {  /* the batches' bytes, read while no thread is expanding */
      long c = 0;
      for (int k = 0; k < 2; k++) for (int ch = 0; ch < NCHUNK; ch++) c += slots[k]->out[ch].held;
      held += c - counted; counted = c;
    }
    if (grow((void **)&nxt->aw, &nxt->aw_cap, nb * W, sizeof(u64), &held)) FAIL(1);
    for (long k = 0; k < nb; k++) { int e = fifo_pop(&q, nxt->aw + k * W); if (e) FAIL(e == 1 ? 6 : e); }
    pool_offer(&pool, nxt, nb);  /* (every state queued before this batch is taken, or the fixpoint is near) */
    int stop = 0;
    for (long k = 0; k < cur_n && !stop; k++) {
      if (r->n_states >= max_states) { r->complete = 0; r->stopped = STOP_STATES; stop = 1; break; }
      if ((head & 255) == 0) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) > timeout) {
          r->complete = 0; r->stopped = STOP_TIME; stop = 1; break;
        }
      }
      if (max_bytes > 0 && held > max_bytes) { r->complete = 0; r->stopped = STOP_MEMORY; stop = 1; break; }
      if (head > level_end) { depth++; level_end = r->n_states - 1; }
      if (first_violation && min_viol >= 0 && depth >= min_viol) { r->complete = 0; r->stopped = STOP_VIOLATION; stop = 1; break; }
      long i = head++;
      if (cur->skip[k]) continue;
      Succs *o = &cur->out[k / CHUNK];
      long lo = cur->begin[k], hi = cur->end[k];
      if (!fingerprints) { tree_read(tree, v.ident[i]); expanding = 1; }
      /* Two passes over the successors.  The first identifies each (exact store: its tree, from
         the key the expansion packed) and asks for its visited-set slot at once; the second looks
         them up and adds the new ones, in transition order (so the numbering and the traces are
         the one-pass search's).  The look-ups' cache misses then overlap. */
      for (long m = lo; m < hi; m++) {
        if (o->kerr[m]) { if (o->kerr[m] < 0) r->bad_entry = -1 - o->kerr[m]; FAIL(o->kerr[m] < 0 ? 3 : o->kerr[m]); }
        if (!fingerprints) { o->id[m] = tree_ident(tree, o->kw + m * W, expanding, &held, &err); if (err) FAIL(1); }
#ifdef __GNUC__
        __builtin_prefetch(&v.index.slot[(long)(mix(o->id[m]) & (u64)(v.index.cap - 1))]);
#endif
      }
      int n_out = 0;
      for (long m = lo; m < hi; m++) {
        int t = o->t[m], e;
        u64 id = o->id[m];
        const unsigned char *pw = o->pw + m * NP, *pok = o->pok + m * NP;
        fired[t]++;
        long mask = v.index.cap - 1, slot = (long)(mix(id) & (u64)mask), j = -1;
        for (u32 x; (x = v.index.slot[slot]); slot = (slot + 1) & mask)
          if (v.ident[x - 1] == id) { j = x - 1; break; }
        int is_new = j < 0;
        if (is_new) {
          j = v.n;
          if (j >= 0xfffffffeL) FAIL(4);
          long pc = v.cap, vc = v.cap;
          if (grow((void **)&v.ident, &v.cap, j + 1, sizeof(u64), &held)
              || grow((void **)&v.parent, &pc, j + 1, sizeof(u32), &held)
              || grow((void **)&v.via, &vc, j + 1, sizeof(short), &held)) FAIL(1);
          v.ident[j] = id; v.parent[j] = (u32)i; v.via[j] = (unsigned short)t;
          v.index.slot[slot] = (u32)(j + 1);
          v.n = r->n_states = j + 1;
          if (index_grow(&v.index, v.n, ident_key, &v, &held)) FAIL(1);
          if (o->berr[m]) { r->bad_entry = -1 - o->berr[m]; FAIL(3); }
          if ((e = fifo_push(&q, o->bw + m * W, spill_dir, &held))) FAIL(e);
          if (o->over[m]) r->overflow = 1;
          if (depth + 1 > r->max_depth) r->max_depth = depth + 1;
        }
        int seen = 0;
        for (int k3 = 0; k3 < n_out; k3++) if (out[k3] == j) { seen = 1; break; }
        if (!seen) { out[n_out++] = j; r->distinct_edges++; }
        if (keep_edges) {
          long c1 = ecap, c2 = ecap, c3 = ecap;
          if (grow((void **)&r->sources, &c1, r->n_edges + 1, sizeof(long), &held)
              || grow((void **)&r->targets, &c2, r->n_edges + 1, sizeof(long), &held)
              || grow((void **)&r->edge_via, &c3, r->n_edges + 1, sizeof(int), &held)) FAIL(1);
          ecap = c1;
          r->sources[r->n_edges] = i; r->targets[r->n_edges] = j; r->edge_via[r->n_edges] = t;
        }
        r->n_edges++;
        for (int k2i = NS; k2i < NS + NT; k2i++) {
          if (violated[k2i]) continue;
          if (pw[k2i]) witnessed[k2i]++;
          if (!pok[k2i]) { violated[k2i] = 1; viol_state[k2i] = i; viol_via[k2i] = t; viol_depth[k2i] = depth + 1;
            if (min_viol < 0 || depth + 1 < min_viol) min_viol = depth + 1; }
        }
        if (is_new) STATE_OUTCOMES(j, depth + 1, pw, pok);
      }
    }
    if (stop) break;
    if (pool_finish(&pool, nxt)) FAIL(1);
    if (nxt->n == 0 && q.size > 0) {  /* the queue was empty when it was popped: the states just added */
      nb = q.size < BATCH ? q.size : BATCH;
      if (grow((void **)&nxt->aw, &nxt->aw_cap, nb * W, sizeof(u64), &held)) FAIL(1);
      for (long k = 0; k < nb; k++) { int e = fifo_pop(&q, nxt->aw + k * W); if (e) FAIL(e == 1 ? 6 : e); }
      pool_offer(&pool, nxt, nb);
      if (pool_finish(&pool, nxt)) FAIL(1);
    }
    Slot *swap = cur; cur = nxt; nxt = swap;
  }
done:
  if (head < r->n_states && head > level_end) depth++;  /* the state at the head opens a level */
  r->queue_head_depth = head < r->n_states ? depth : r->max_depth;
  r->nodes = tree ? tree->n_nodes : 0;
  r->frontier_peak = q.peak; r->spilled = q.spilled;
  r->parent = v.parent; r->via = v.via;
  free(v.ident); free(v.index.slot);
  if (pool.threaded) {  /* the threads leave once their chunk is done: nothing of a batch is freed before */
    pthread_mutex_lock(&pool.mu);
    pool.quit = 1;
    pthread_cond_broadcast(&pool.go);
    pthread_mutex_unlock(&pool.mu);
    for (int j = 1; j <= n_started; j++) pthread_join(pool_th[j], NULL);
    pthread_cond_destroy(&pool.go); pthread_cond_destroy(&pool.done); pthread_mutex_destroy(&pool.mu);
  }
  for (int k = 0; k < 2; k++) if (slots[k]) {  /* the batches: working memory, not the store's */
    r->batch_bytes += (long)sizeof(Slot) + slots[k]->aw_cap * (long)sizeof(u64);
    for (int ch = 0; ch < NCHUNK; ch++) { r->batch_bytes += slots[k]->out[ch].held; held += slots[k]->out[ch].held; }
  }
  held -= counted;  /* the chunks' bytes counted before, now counted whole */
  r->bytes = held;
  for (int k = 0; k < 2; k++) if (slots[k]) {
    for (int ch = 0; ch < NCHUNK; ch++) succs_free(&slots[k]->out[ch]);
    free(slots[k]->aw); free(slots[k]);
  }
  if (tree) { free(tree->node); free(tree->nodes.slot); free(tree); }
  free(q.ring); free(q.wbuf); free(q.rbuf);
  if (q.fd >= 0) close(q.fd);
  return r;
}

/* A visited state's values: the start replayed along its path (path[0..n-1], transitions). */
int replay(const int *s0, const int *path, int n, int *out) {
  int x[F];
  memcpy(out, s0, F * sizeof(int));
  for (int k = 0; k < n; k++) {
    if (path[k] < 0 || path[k] >= T || !STEP[path[k]](out, x)) return -1;
    memcpy(out, x, sizeof x);
  }
  return 0;
}

/* For the conformance tests: one transition's successor (0 if it is not enabled), and the
   properties' outcomes on a state or an edge. */
int successor(int t, const int *a, int *b) { return STEP[t](a, b); }
void state_outcomes(const int *b, unsigned char *w, unsigned char *ok) { state_props(b, w, ok); }
void edge_outcomes(int t, const int *a, const int *b, unsigned char *w, unsigned char *ok) { TRANS_PROPS[t](a, b, w, ok); }

void free_result(Result *r) {
  free(r->parent); free(r->via); free(r->sources); free(r->targets); free(r->edge_via); free(r);
}
