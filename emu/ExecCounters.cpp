//===- ExecCounters.cpp - Requests, sectors and wavefronts of a warp ------===//
//
// What the memory system sees of one warp-level access, as Nsight Compute
// counts it (l1tex__t_requests / l1tex__t_sectors for global memory,
// l1tex__data_pipe_lsu_wavefronts_mem_shared for shared memory):
//  - global: one request per instruction; the distinct 32-byte sectors the
//    active lanes' bytes fall in. A store that writes part of a sector is
//    a partial write (the L2 merges it with the sector's other bytes).
//  - shared: 32 banks of 4-byte words; a wavefront serves at most one word
//    per bank, so the lanes of one phase take as many wavefronts as the
//    busiest bank has distinct words (lanes reading one word share it).
//    Accesses over 4 bytes a lane run in phases of 128 bytes: half-warps
//    for 8 bytes, quarter-warps for 16.
// Shared wavefronts are counted in every launch. Global requests are
// counted in profiled launches (LaunchState::profile; they cost the
// emulator 10-15% on memory-bound kernels), with stores to the addresses the
// warp loaded earlier in the same loop as round trips (an accumulator kept
// in memory), the counters per pc and the distinct sectors of the launch.
//
//===----------------------------------------------------------------------===//

#include "emu/ExecOps.h"

#include <algorithm>

namespace gptc::emu {

namespace {

constexpr uint64_t kSector = 32;

/// A hash of the lanes' addresses (and which lanes).
uint64_t addressHash(uint32_t mask, const uint64_t *addr) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ mask;
  FOR_LANES(mask, l) h = (h ^ addr[l]) * 0x100000001b3ull + l;
  return h;
}

/// Loads are remembered; a store to the same lanes' addresses inside the
/// loop of one of them is a round trip of a value kept in memory.
bool roundTrip(WarpState &w, const Instr &in, uint32_t mask,
               const uint64_t *addr, bool write) {
  if (in.loopStart < 0)
    return false;
  uint64_t h = addressHash(mask, addr);
  if (!write) {
    w.recentLoadHash[w.recentLoadNext] = h;
    w.recentLoadPc[w.recentLoadNext] = (int32_t)(&in - w.mod->code.data());
    w.recentLoadNext = (w.recentLoadNext + 1) % WarpState::kRecentLoads;
    return false;
  }
  for (unsigned i = 0; i < WarpState::kRecentLoads; ++i) {
    int32_t pc = w.recentLoadPc[i];
    if (w.recentLoadHash[i] == h && pc >= in.loopStart && pc <= in.loopEnd)
      return true;
  }
  return false;
}

} // namespace

void countGlobalRequest(WarpState &w, const Instr &in, uint32_t mask,
                        const uint64_t *addr, unsigned bytes, bool write) {
  if (!mask || !w.counters)
    return;
  // Each lane's bytes as sector ranges; the common coalesced case (lane
  // l at first + l * bytes) is counted without sorting.
  uint64_t first = addr[__builtin_ctz(mask)];
  unsigned firstLane = __builtin_ctz(mask), lastLane = 31 - __builtin_clz(mask);
  bool linear =
      mask == (uint32_t)(((2ull << lastLane) - 1) & ~((1ull << firstLane) - 1));
  FOR_LANES(mask, l)
  linear &= addr[l] == first + (uint64_t)(l - firstLane) * bytes;
  uint64_t sectors = 0, partial = 0;
  unsigned n = 0;
  if (linear) {
    uint64_t lo = first, hi = first + (uint64_t)laneCount(mask) * bytes;
    uint64_t s0 = lo / kSector, s1 = (hi - 1) / kSector;
    sectors = s1 - s0 + 1;
    partial = s0 == s1 ? (lo % kSector || hi % kSector)
                       : (lo % kSector != 0) + (hi % kSector != 0);
    if (w.sectorsTouched)
      for (uint64_t s = s0; s <= s1; ++s)
        w.sectorsTouched->insert(s);
  } else {
    // Distinct sectors, and the bytes of each the lanes write.
    struct Piece {
      uint64_t sector;
      uint32_t byteMask;
    } pieces[64];
    FOR_LANES(mask, l) {
      uint64_t a = addr[l], end = a + bytes;
      while (a < end) {
        uint64_t s = a / kSector, stop = std::min(end, (s + 1) * kSector);
        uint32_t m = (uint32_t)(((1ull << (stop - a)) - 1) << (a % kSector));
        pieces[n++] = {s, m};
        a = stop;
      }
    }
    std::sort(pieces, pieces + n, [](const Piece &a, const Piece &b) {
      return a.sector < b.sector;
    });
    for (unsigned i = 0; i < n;) {
      uint32_t covered = 0;
      unsigned j = i;
      for (; j < n && pieces[j].sector == pieces[i].sector; ++j)
        covered |= pieces[j].byteMask;
      ++sectors;
      partial += covered != ~0u;
      if (w.sectorsTouched)
        w.sectorsTouched->insert(pieces[i].sector);
      i = j;
    }
  }
  LaunchCounters &c = *w.counters;
  if (write) {
    ++c.globalStoreRequests;
    c.globalStoreSectors += sectors;
    c.partialStoreSectors += partial;
  } else {
    ++c.globalLoadRequests;
    c.globalLoadSectors += sectors;
  }
  bool trip = roundTrip(w, in, mask, addr, write);
  c.accumulatorRoundTrips += trip;
  if (!w.pcCounters)
    return;
  PcCounters &pc = w.pcCounters[&in - w.mod->code.data()];
  ++pc.requests;
  pc.sectors += sectors;
  if (write)
    pc.partialSectors += partial;
  pc.roundTrips += trip;
}

void countSharedRequest(WarpState &w, const Instr &in, uint32_t mask,
                        const uint64_t *addr, unsigned bytes) {
  if (!mask || !w.counters)
    return;
  unsigned phaseLanes = bytes <= 4 ? 32 : bytes == 8 ? 16 : 8;
  // Lanes in order on consecutive addresses, or all on one: no conflict.
  uint64_t first = addr[__builtin_ctz(mask)];
  bool linear = true, broadcast = true;
  FOR_LANES(mask, l) {
    linear &= addr[l] == first + (uint64_t)(l - __builtin_ctz(mask)) * bytes;
    broadcast &= addr[l] == first;
  }
  uint64_t wavefronts = 0, ideal = 0;
  for (unsigned p0 = 0; p0 < 32; p0 += phaseLanes) {
    uint32_t phase = mask & (uint32_t)(((1ull << phaseLanes) - 1) << p0);
    if (!phase)
      continue;
    ++ideal;
    if (linear || broadcast) {
      ++wavefronts;
      continue;
    }
    // Distinct words per bank; a lane of `bytes` > 4 covers several.
    uint64_t words[32][32];
    unsigned count[32] = {}, worst = 1;
    FOR_LANES(phase, l) {
      for (uint64_t wd = addr[l] / 4; wd <= (addr[l] + bytes - 1) / 4; ++wd) {
        unsigned bank = (unsigned)(wd % 32);
        bool seen = false;
        for (unsigned i = 0; i < count[bank] && !seen; ++i)
          seen = words[bank][i] == wd;
        if (seen)
          continue;
        words[bank][count[bank]] = wd;
        worst = std::max(worst, ++count[bank]);
      }
    }
    wavefronts += worst;
  }
  LaunchCounters &c = *w.counters;
  ++c.sharedRequests;
  c.sharedWavefronts += wavefronts;
  c.sharedBankConflicts += wavefronts - ideal;
  if (w.pcCounters) {
    PcCounters &pc = w.pcCounters[&in - w.mod->code.data()];
    ++pc.requests;
    pc.wavefronts += wavefronts;
  }
}

} // namespace gptc::emu
