// One pass over (quasi-identifier values, sensitive value) rows building the
// classes of a release and their sensitive counts: the specialized hash
// aggregation behind audit().
//
// A row is coded (one small table per quasi-identifier column,
// which stays in cache) and buffered, as fixed-width codes, in one of 256
// partitions chosen by the hash of its class. When the buffer is full, each partition's rows are folded into that
// partition's class table, one partition at a time: a partition's table is small enough to stay in cache, so most rows
// cost no DRAM miss for their class (a release's classes often have a dozen rows or fewer, too few for one big table to
// be reused). Memory grows with the classes, not the rows; all of it comes from one resource, so the caller can bound
// it and fall back to a spilling GROUP BY.
#pragma once

#include <functional>
#include <optional>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

#include "common/byte_form.hpp"
#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "classes/contingency_table.hpp"

namespace privrisk {

class ClassAggregator {
public:
    // buffer_rows: rows buffered before they are folded into the classes.
    ClassAggregator(std::pmr::memory_resource* mr, std::size_t quasi_identifiers,
                    std::size_t buffer_rows = std::size_t(1) << 20);

    // A tally that travels (a parallel worker's to the leader, a shard's to the
    // coordinator) knows each quasi-identifier value by its text, since keys are
    // the caller's binary forms: text(i) is the text of the value of column i
    // that add() has just met for the first time.
    struct Texts {
        virtual std::string_view text(std::size_t column) = 0;

    protected:
        ~Texts() = default;
    };

    // qi[i] is the released value of quasi-identifier i (nullopt: ⊥). Without
    // `texts`, a value's key is its text.
    void add(const Value* qi, Value sensitive, Texts* texts = nullptr);
    uint64_t rows() const { return rows_; }
    // The release's contingency table, in canonical order; the aggregator is spent afterwards.
    ContingencyTable finish();

    // A partial state's byte form (class_tally's, between one server's workers): each column's values by text,
    // the sensitive values, every class's codes with its (value, count) cells.
    // Integers in native byte order: it travels between servers of one
    // architecture only.
    std::string serialize();
    // Adds a tally in byte form, checking every offset, code and count (a
    // hand-made one is refused). Only into an aggregator keyed by texts.
    void merge_serialized(std::string_view bytes);

    // The tally as it leaves its server (class_tally's value, docs/scale-out.md),
    // compact because it crosses the network as hex: u32 tag, u32 width, u32 length
    // of the sensitive values and those values (serialize_sensitive); per column u32
    // count of its values and each as u32 length and text; u64 classes, then per
    // class in the order of serialize_run(0, 1) its codes (varint: 0 for ⊥, else the
    // value's index + 1), the varint length of its cells and its cells as a run has
    // them. A class's place depends on its values' texts only, so the tallies of
    // several servers merge in one pass (class_runs.hpp) whatever binary forms their
    // columns have; place(n) says where its n bytes go.
    void serialize_tally(const std::function<char*(std::size_t)>& place);
    std::string serialize_tally();
    struct TallyForm {
        std::pmr::string sensitive, run;  // as run_values and merge_class_runs read them
    };
    // A tally as a run, in `mr`; its tag, width, codes and lengths checked (its cells
    // and order are checked as the run is merged).
    static TallyForm read_tally(std::string_view bytes, std::size_t width,
                                std::pmr::memory_resource* mr = std::pmr::get_default_resource());
    // Adds another aggregator's classes, its values by text (a combine in one process).
    void merge(ClassAggregator& other);

    // Runs, for merging in parallel (class_runs.hpp): the sensitive values once,
    // and the classes of task `task` of `tasks`, sorted by class hash and key
    // bytes, each with its key's bytes (its values' texts). A class's task and
    // place depend on those bytes only, so every aggregator of one release puts a
    // class in the same task's run at the same place.
    std::string serialize_sensitive();
    // Reads the sensitive values of such a form (u32 count, then per value u8
    // present, u32 length, bytes), each checked, calling on_value(index, present,
    // text); returns their count. `form` names the form in errors ("a class run").
    template <typename F>
    static uint32_t read_sensitive(ByteReader& r, const char* form, F&& on_value);
    std::string serialize_run(std::size_t task, std::size_t tasks);
    // The same put where place(n) says (n bytes of shared memory): the run is made in this
    // aggregator's memory (counted by its resource) and copied there once.
    void serialize_run(std::size_t task, std::size_t tasks, const std::function<char*(std::size_t)>& place);
    static constexpr std::size_t kMaxTasks = 256;

    static constexpr uint32_t kTallyTag = 0x31545250;  // "PRT1": another version's form is refused by name

private:
    static constexpr std::size_t kPartitionBits = 8;
    static constexpr std::size_t kPartitions = std::size_t(1) << kPartitionBits;
    static constexpr std::size_t kBlockWords = 16 * 1024;  // buffers grow by 64 kB blocks, reused after each fold

    struct Cell {  // one (value id, count) of a class, chained per class
        uint32_t value, next;
        int64_t count;
    };
    // A partition: its buffered rows ((k codes, value id) each, in blocks) and its classes.
    struct Partition {
        std::pmr::vector<uint32_t*> blocks;
        std::size_t full_blocks = 0, used = 0;  // rows sit in blocks[0 .. full_blocks] (used words in the last)
        std::pmr::vector<uint32_t> slots;       // class index + 1; 0 = empty
        std::pmr::vector<uint32_t> keys;        // k codes per class
        std::pmr::vector<uint32_t> first;       // per class: its first cell
        std::pmr::vector<Cell> cells;
        explicit Partition(std::pmr::memory_resource* mr) : blocks(mr), slots(mr), keys(mr), first(mr), cells(mr) {}
    };

    void fold(Partition& p);               // the buffered rows into the partition's classes
    static void warm(const Partition& p);  // its cells into cache before their chains are walked
    void fold_all();
    void add_class_row(Partition& p, const uint32_t* row, int64_t count = 1);
    uint32_t find_class(Partition& p, const uint32_t* codes);  // its id, added when new
    void add_cell(Partition& p, uint32_t id, uint32_t value, int64_t count);
    uint32_t code(std::size_t column, std::string_view key, Texts* texts);
    static uint64_t hash_codes(const uint32_t* codes, std::size_t k);
    // A class's hash and partition, from its values' texts (not this aggregator's codes):
    // value_hash(i) is column i's value's hash, kNullHash for ⊥.
    static constexpr uint64_t kNullHash = 0x5bd1e9955bd1e995ull;  // ⊥ has no bytes
    template <typename F>
    static uint64_t mix_class_hash(std::size_t k, F&& value_hash) {
        uint64_t h = 0x9e3779b97f4a7c15ull ^ k;
        for (std::size_t i = 0; i < k; ++i) {
            h ^= value_hash(i);
            h *= 0xbf58476d1ce4e5b9ull;
            h ^= h >> 31;
        }
        h *= 0x94d049bb133111ebull;
        h ^= h >> 29;
        return h;
    }
    uint64_t class_hash(const uint32_t* codes) const {
        return mix_class_hash(qi_count_,
                              [&](std::size_t i) { return codes[i] ? value_hashes_[i][codes[i] - 1] : kNullHash; });
    }
    std::size_t partition_of(const uint32_t* codes) const {
        return static_cast<std::size_t>(class_hash(codes) >> (64 - kPartitionBits));
    }
    std::string_view key_text(std::size_t column, uint32_t code) const;  // code > 0
    void put_sensitive(std::string& out) const;
    std::string serialize_values();  // the byte form's head: width, each column's values, the sensitive values
    struct Recoding;                 // another aggregator's values as ours
    Recoding read_values(ByteReader& r);
    void merge_classes(Recoding& recoding, ByteReader& r);
    void put_classes(std::string& out) const;

    std::pmr::memory_resource* mr_;
    std::size_t qi_count_;
    std::size_t record_words_;           // k codes + the value id
    std::pmr::vector<FlatIndex> codes_;  // one per quasi-identifier
    // Per quasi-identifier: the texts of its values (code − 1), end offsets.
    std::pmr::vector<std::pmr::vector<char>> texts_;
    std::pmr::vector<std::pmr::vector<uint64_t>> text_ends_;
    std::pmr::vector<std::pmr::vector<uint64_t>> value_hashes_;  // per column: FlatIndex::hash of each value's text
    bool binary_keys_ = false;  // some key was not its text: cannot merge tallies keyed by text
    std::pmr::vector<Partition> partitions_;
    // serialize_run's scratch, kept from task to task (grown once, not per task): each
    // class's record, where it is, and the (hash, entry) order to write them in.
    struct RunEntry {
        uint64_t hash;
        std::size_t at;
        uint32_t key_length, length;  // the key's bytes; the whole record's
    };
    struct RunScratch {
        std::pmr::vector<char> records;
        std::pmr::vector<RunEntry> entries;
        std::pmr::vector<std::pair<uint64_t, uint32_t>> order;
        explicit RunScratch(std::pmr::memory_resource* mr) : records(mr), entries(mr), order(mr) {}
    } run_;
    std::vector<uint32_t> record_;  // scratch: the current row
    std::size_t buffer_rows_, buffered_ = 0;
    uint64_t rows_ = 0;
    ContingencyTable table_;  // interns the sensitive values
};

template <typename F>
uint32_t ClassAggregator::read_sensitive(ByteReader& r, const char* form, F&& on_value) {
    const uint32_t m = r.get<uint32_t>();
    r.need(std::size_t(m) * 5);  // each value takes at least its flag and length: nothing sized by a lie
    for (uint32_t v = 0; v < m; ++v) {
        const uint8_t present = r.get<uint8_t>();
        const std::string_view text = r.bytes(r.get<uint32_t>());
        if (present > 1 || (!present && !text.empty()))
            fail(ErrorKind::InvalidParameter, std::string(form) + "'s sensitive value is malformed");
        on_value(v, present == 1, text);
    }
    return m;
}

}  // namespace privrisk
