/*===- HyperOffloadRuntime.h - What a runtime implements to run a plan -===*\
|*                                                                          *|
|* ho-lower-to-runtime rewrites a scheduled function into calls of these    *|
|* functions, so that any runtime can execute a HyperOffload plan. A plan   *|
|* places every device buffer at a fixed offset in one arena of             *|
|* `ho.arena_size` bytes; transfers move whole buffers between the arena    *|
|* and a memory tier on a queue, and compute waits only where the plan      *|
|* says so. docs/Runtime.md describes the calls in the order a plan makes   *|
|* them.                                                                    *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef HYPEROFFLOAD_RUNTIME_HYPEROFFLOADRUNTIME_H
#define HYPEROFFLOAD_RUNTIME_HYPEROFFLOADRUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Memory tiers, as in `!ho.remote<T, tier>`. */
enum ho_tier { HO_TIER_POOL = 0, HO_TIER_HOST = 1, HO_TIER_DISK = 2 };

/* Queues: one per tier and direction, `2 * tier` towards the device and
 * `2 * tier + 1` away from it. Transfers on one queue run in issue order. */
static inline int32_t ho_queue_to_device(int32_t tier) { return 2 * tier; }
static inline int32_t ho_queue_from_device(int32_t tier) {
  return 2 * tier + 1;
}

/* A tensor's copy in a tier. Function arguments and results of type
 * `!ho.remote` are passed as these handles; the runtime allocates the tier
 * storage for the copies an offload makes. */
typedef int64_t ho_remote_t;

/* A prefetch in flight. */
typedef int64_t ho_event_t;

/* The device arena as MLIR's C interface passes a `memref<?xi8>`: the
 * runtime fills it in `_mlir_ciface_ho_arena_base`. Every device buffer of
 * the plan lies at `aligned + offset`, for the offset in `ho.offsets`. */
typedef struct ho_arena {
  int8_t *allocated;
  int8_t *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
} ho_arena_t;

void _mlir_ciface_ho_arena_base(ho_arena_t *arena);

/* Starts copying `bytes` bytes at `device_offset` in the arena into new
 * storage in `tier`, on `queue`, and returns the copy at once. The device
 * bytes must stay untouched until the copy has completed; the plan does not
 * reuse them before `ho_offload_wait` or before a prefetch of the copy has
 * been ordered after it. */
ho_remote_t ho_offload_start(int32_t tier, int32_t queue, int64_t device_offset,
                             int64_t bytes);

/* Blocks until the offload that made `copy` has completed. */
void ho_offload_wait(ho_remote_t copy);

/* Starts copying `bytes` bytes of `source` (a copy in `tier`) to
 * `device_offset` in the arena, on `queue`, and returns at once. It must not
 * read the copy before the offload that makes it has completed: the runtime
 * orders it after that offload, like an event between the queues. */
ho_event_t ho_prefetch_start(int32_t tier, int32_t queue, ho_remote_t source,
                             int64_t device_offset, int64_t bytes);

/* Blocks until the prefetch `event` has landed. */
void ho_event_wait(ho_event_t event);

/* A routed prefetch (ho.prefetch_routed): slots in the arena and the expert
 * each holds. Its picks are `num_picks` int32 global expert ids in the
 * arena at `selection_offset`, which compute has written before the call
 * (the router's output, or a prediction of it). */
typedef int64_t ho_routed_t;

/* Begins a routed prefetch into `slots` slots of `slot_bytes` bytes each,
 * the first at `device_offset`. */
ho_routed_t ho_routed_begin(int64_t selection_offset, int64_t num_picks,
                            int64_t device_offset, int64_t slot_bytes,
                            int64_t slots);

/* If the picks name `expert_id` and a slot is free, starts copying
 * `source` (a copy in `tier`) into the next slot on `queue`; otherwise does
 * nothing. */
void ho_routed_offer(ho_routed_t group, int32_t tier, int32_t queue,
                     int64_t expert_id, ho_remote_t source);

/* The event of every copy the group has started, for ho_event_wait. */
ho_event_t ho_routed_event(ho_routed_t group);

/* Right before the kernel that reads the group's slots (ho.routed): if the
 * `num_picks` ids at `selection_offset` name `expert_id` and no slot holds
 * it (the group fetched on a wrong prediction), copies `source` into a slot
 * whose expert those ids do not name, and returns when it has landed. */
void ho_routed_ensure(ho_routed_t group, int64_t selection_offset,
                      int64_t num_picks, int32_t tier, int32_t queue,
                      int64_t expert_id, ho_remote_t source);

/* The global id of the expert in slot `slot`, or -1 for an empty slot: the
 * kernel's table of what it reads where. */
int64_t ho_routed_slot_expert(ho_routed_t group, int64_t slot);

/* Picked blocks (ho.prefetch_blocks, ho.gather_blocks): a tensor in a tier
 * is `rows` rows of `row_bytes` bytes, each cut into blocks of
 * `block_bytes` (the last may be short). Picks are `rows * picks_per_row`
 * int32 block indices in the arena at `selection_offset`, row by row; the
 * blocks land side by side at `device_offset`, `picks_per_row` full-size
 * places per row, and the place of a short block ends in zeros. */
typedef int64_t ho_blocks_t;

/* Starts copying the blocks of `source` (a copy in `tier`) that the picks
 * name into their places, on `queue`, and returns a group that remembers
 * which block each place holds. The picks may be a prediction. */
ho_blocks_t ho_blocks_begin(int32_t tier, int32_t queue, ho_remote_t source,
                            int64_t selection_offset, int64_t rows,
                            int64_t picks_per_row, int64_t row_bytes,
                            int64_t block_bytes, int64_t device_offset);

/* The event of every copy the group has started, for ho_event_wait. */
ho_event_t ho_blocks_event(ho_blocks_t group);

/* Right before the gather that reads the group's places: puts the block
 * that each of the picks at `selection_offset` names into the place of
 * that pick, moving the ones the group holds elsewhere and copying the
 * ones it lacks from its source on its queue, and returns when they have
 * landed. After a prefetch on the same picks it changes nothing. */
void ho_blocks_ensure(ho_blocks_t group, int64_t selection_offset);

/* Starts copying `runs` runs of `run_bytes` bytes from `device_offset` in
 * the arena (one after the other) into the copy `dest` in `tier`, the i-th
 * at byte `dest_offset + i * dest_stride` of it, on `queue`, and returns
 * `dest`, updated in place (ho.offload_slice). The device bytes must stay
 * untouched until the copy has completed. */
ho_remote_t ho_offload_slice_start(int32_t tier, int32_t queue,
                                   ho_remote_t dest, int64_t device_offset,
                                   int64_t run_bytes, int64_t runs,
                                   int64_t dest_offset, int64_t dest_stride);

/* Integrity hooks, called only by a plan placed with
 * `ho-place-in-arena{check-integrity}`: compute at `site` (an index into
 * the function's `ho.integrity_sites`) is about to read the arena bytes
 * [offset, offset + bytes), expecting the data `owner`... */
void ho_integrity_read(int64_t offset, int64_t bytes, int64_t owner,
                       int64_t site);

/* ...or is about to read the slots of the routed group `group` that hold
 * an expert (a routed kernel's staged experts)... */
void ho_integrity_read_slots(ho_routed_t group, int64_t site);

/* ...or has written them; returns a new owner naming what it wrote. */
int64_t ho_integrity_write(int64_t offset, int64_t bytes, int64_t site);

/* The owner of the data `copy` holds, which a prefetch of it brings. */
int64_t ho_integrity_copy_owner(ho_remote_t copy);

#ifdef __cplusplus
}
#endif

#endif /* HYPEROFFLOAD_RUNTIME_HYPEROFFLOADRUNTIME_H */
