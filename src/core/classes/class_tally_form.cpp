// A class tally as it leaves its server (ClassAggregator::serialize_tally), as
// the coordinator walks it (TallyReader: the class reader) or reads it back into a
// run (read_tally: audit(), merged with class_runs.hpp). Its classes come in
// run order but carry codes into per-column dictionaries instead of their keys'
// texts and hashes: at 10M census rows a shard's tally is about a quarter of its
// run, and the form crosses postgres_fdw as hex.
#include <algorithm>
#include <cstring>

#include "classes/class_aggregator.hpp"
#include "classes/class_runs.hpp"
#include "classes/class_tally_form.hpp"
#include "common/byte_form.hpp"
#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

void ClassAggregator::serialize_tally(const std::function<char*(std::size_t)>& place) {
    fold_all();
    const std::string sensitive = serialize_sensitive();
    if (sensitive.size() > UINT32_MAX) fail(ErrorKind::ProgramLimit, "a class tally's sensitive values take over 4 GB");
    const std::size_t k = qi_count_;
    // Each class as (hash, partition << 32 | id), in a run's order: by hash, then by its key's
    // bytes in a run (made only for equal hashes, which are rare). No class's key is made
    // otherwise: the tally needs 16 bytes a class besides the classes themselves.
    uint64_t classes = 0;
    for (const Partition& p : partitions_) classes += p.first.size();
    std::pmr::vector<std::pair<uint64_t, uint64_t>> order(mr_);
    order.reserve(classes);
    auto codes_of = [&](uint64_t ref) {
        return partitions_[ref >> 32].keys.data() + std::size_t(ref & UINT32_MAX) * k;
    };
    for (std::size_t q = 0; q < kPartitions; ++q)
        for (uint32_t id = 0; id < partitions_[q].first.size(); ++id)
            order.emplace_back(class_hash(partitions_[q].keys.data() + std::size_t(id) * k), (uint64_t(q) << 32) | id);
    std::string a_key, b_key;
    auto value_of = [&](const uint32_t* codes, std::size_t i) {
        return codes[i] ? std::optional<std::string_view>(key_text(i, codes[i])) : std::nullopt;
    };
    auto run_key = [&](uint64_t ref, std::string& out) -> const std::string& {
        const uint32_t* codes = codes_of(ref);
        std::size_t size = 0;
        for (std::size_t i = 0; i < k; ++i) size += key_value_size(value_of(codes, i));
        out.resize(size);
        char* to = out.data();
        for (std::size_t i = 0; i < k; ++i) to = put_key_value(to, value_of(codes, i));
        return out;
    };
    std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first < b.first;
        return run_key(a.second, a_key) < run_key(b.second, b_key);
    });
    // A class's cells as a run writes them (varint value id, varint count), along its chain.
    auto for_each_cell = [&](uint64_t ref, auto&& on_cell) {
        const Partition& p = partitions_[ref >> 32];
        for (uint32_t c = p.first[ref & UINT32_MAX]; c != UINT32_MAX; c = p.cells[c].next)
            on_cell(p.cells[c].value, static_cast<uint64_t>(p.cells[c].count));
    };
    auto cells_size = [&](uint64_t ref) {
        std::size_t n = 0;
        for_each_cell(ref, [&](uint32_t value, uint64_t count) { n += varint_size(value) + varint_size(count); });
        return n;
    };
    std::size_t size = 3 * sizeof(uint32_t) + sensitive.size() + sizeof(uint64_t);
    for (std::size_t i = 0; i < k; ++i) {
        if (text_ends_[i].size() > UINT32_MAX)
            fail(ErrorKind::ProgramLimit, "a class tally's column has over 2^32 values");
        size += sizeof(uint32_t) * (1 + text_ends_[i].size()) + texts_[i].size();
    }
    for (const auto& [hash, ref] : order) {
        const uint32_t* codes = codes_of(ref);
        for (std::size_t i = 0; i < k; ++i) size += varint_size(codes[i]);
        const std::size_t cells = cells_size(ref);
        size += varint_size(cells) + cells;
    }
    char* to = place(size);
    const uint32_t head[3] = {kTallyTag, static_cast<uint32_t>(k), static_cast<uint32_t>(sensitive.size())};
    std::memcpy(to, head, sizeof head);
    to = put_raw(to + sizeof head, sensitive);
    auto put32 = [&to](uint32_t v) {
        std::memcpy(to, &v, sizeof v);
        to += sizeof v;
    };
    for (std::size_t i = 0; i < k; ++i) {
        put32(static_cast<uint32_t>(text_ends_[i].size()));
        for (uint32_t code = 1; code <= text_ends_[i].size(); ++code) {
            const std::string_view text = key_text(i, code);
            if (text.size() >= UINT32_MAX) fail(ErrorKind::ProgramLimit, "a class tally's value takes 4 GB or more");
            put32(static_cast<uint32_t>(text.size()));
            to = put_raw(to, text);
        }
    }
    std::memcpy(to, &classes, sizeof classes);
    to += sizeof classes;
    for (const auto& [hash, ref] : order) {
        const uint32_t* codes = codes_of(ref);
        for (std::size_t i = 0; i < k; ++i) to = put_varint(to, codes[i]);
        to = put_varint(to, cells_size(ref));
        for_each_cell(ref, [&](uint32_t value, uint64_t count) { to = put_varint(put_varint(to, value), count); });
    }
}

std::string ClassAggregator::serialize_tally() {
    std::string out;
    serialize_tally([&out](std::size_t size) {
        out.assign(size, '\0');
        return out.data();
    });
    return out;
}

TallyReader::TallyReader(std::string_view bytes, std::size_t width, std::pmr::memory_resource* mr) : width_(width) {
    ByteReader r{bytes, "a class tally"};
    if (r.get<uint32_t>() != ClassAggregator::kTallyTag)
        fail(ErrorKind::InvalidParameter,
             "a class tally in a byte form this privrisk does not read: every shard must run the same privrisk "
             "version as the coordinator, on a machine of the same byte order");
    if (r.get<uint32_t>() != width) fail(ErrorKind::InvalidParameter, "a class tally of another width");
    sensitive_ = r.bytes(r.get<uint32_t>());
    values_.reserve(width);
    for (std::size_t i = 0; i < width; ++i) {
        std::pmr::vector<std::string_view>& texts = values_.emplace_back(mr);
        const uint32_t n = r.get<uint32_t>();
        r.need(std::size_t(n) * sizeof(uint32_t));  // each value takes at least its length: nothing sized by a lie
        texts.reserve(n);
        for (uint32_t v = 0; v < n; ++v) texts.push_back(r.bytes(r.get<uint32_t>()));
    }
    classes_ = r.get<uint64_t>();
    r.need(std::min<uint64_t>(classes_, r.in.size()) * (width + 1));  // each class takes a byte per code and more
    body_ = r.in;
}

ClassAggregator::TallyForm ClassAggregator::read_tally(std::string_view bytes, std::size_t width,
                                                       std::pmr::memory_resource* mr) {
    const TallyReader tally(bytes, width, mr);
    TallyForm form{std::pmr::string(tally.sensitive(), mr), std::pmr::string(mr)};
    // Each value's hash as serialize_run gives it (by its text).
    std::vector<std::pmr::vector<uint64_t>> hashes;
    for (std::size_t i = 0; i < width; ++i) {
        std::pmr::vector<uint64_t>& h = hashes.emplace_back(mr);
        h.reserve(tally.values(i).size());
        for (std::string_view text : tally.values(i)) h.push_back(FlatIndex::hash(text));
    }
    // Two passes: the first sizes the run (and checks every code and length), the second writes it.
    auto value_of = [&](const uint32_t* codes, std::size_t i) {
        return codes[i] ? std::optional<std::string_view>(tally.values(i)[codes[i] - 1]) : std::nullopt;
    };
    auto key_size = [&](const uint32_t* codes) {
        std::size_t key = 0;
        for (std::size_t i = 0; i < width; ++i) key += key_value_size(value_of(codes, i));
        return key;
    };
    std::size_t size = sizeof(uint64_t);
    tally.for_each_class([&](const uint32_t* codes, std::string_view cells) {
        const std::size_t key = key_size(codes);
        if (key > UINT32_MAX || cells.size() > UINT32_MAX)
            fail(ErrorKind::ProgramLimit, "a class tally's class takes more than 4 GB");
        size += sizeof(uint64_t) + 2 * sizeof(uint32_t) + key + cells.size();
    });
    form.run.resize(size);
    char* to = form.run.data();
    auto put = [&to](auto v) {
        std::memcpy(to, &v, sizeof v);
        to += sizeof v;
    };
    put(tally.classes());
    tally.for_each_class([&](const uint32_t* codes, std::string_view cells) {
        put(mix_class_hash(width, [&](std::size_t i) { return codes[i] ? hashes[i][codes[i] - 1] : kNullHash; }));
        put(static_cast<uint32_t>(key_size(codes)));
        for (std::size_t i = 0; i < width; ++i) to = put_key_value(to, value_of(codes, i));
        put(static_cast<uint32_t>(cells.size()));
        to = put_raw(to, cells);
    });
    return form;
}

}  // namespace privrisk
