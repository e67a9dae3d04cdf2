// The record a count for record suppression keeps of the rows it read
// (docs/release.md, "Record suppression"): each row's class id, in the order the
// rows were read, and the blocks read (block << 32 | rows in it), so that the
// serial read after it takes each row's class from the record instead of its values.
//
// Counted in parallel, each process read some of the blocks and numbered its
// classes its own way. merge_record_shares puts the records together: the rows
// of the leader (the first share) stay where they are, the others' follow in the
// leader's class ids, and the blocks are sorted (the serial read goes from block
// 0), each with where its rows start. Plain C++: no PostgreSQL.
#pragma once

#include <cstdint>
#include <memory_resource>
#include <string_view>
#include <vector>

namespace privrisk {

struct RecordShare {
    std::string_view blocks;    // uint64_t each (block << 32 | rows), as read; native byte order, any alignment
    std::string_view sequence;  // uint32_t each: a class id per row, as read
    std::vector<uint32_t> map;  // its class ids -> the leader's; unused for the first share
};

// `sequence` holds the first share's rows already (and is that share's
// `sequence`: it may move when it grows); the others' rows are appended, in the
// leader's ids. `blocks` becomes every share's blocks sorted, `starts` where each
// one's rows are in `sequence`. A block read by two processes, a share whose
// blocks do not add up to its rows, or an id outside its map throws Error.
void merge_record_shares(const std::vector<RecordShare>& shares, std::pmr::vector<uint32_t>* sequence,
                         std::pmr::vector<uint64_t>* blocks, std::pmr::vector<uint64_t>* starts);

}  // namespace privrisk
