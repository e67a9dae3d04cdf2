// A std::pmr::memory_resource over a PostgreSQL memory context: core containers
// placed in it are accounted by PostgreSQL and freed with the context, and an
// allocation failure is a C++ std::bad_alloc, never a longjmp.
#pragma once

#include <cstdint>
#include <memory_resource>
#include <new>
#include <utility>

#include <sys/mman.h>

#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/memory_limit.hpp"

namespace privrisk::pg {

// Thrown by a PgMemoryResource with a limit instead of crossing it; `need`: what
// the context would have held with the allocation, `limit`: the resource's.
struct MemoryLimitExceeded {
    std::size_t need = 0;
    std::size_t limit = 0;
};

// A large table read at random (a hash table of classes) spends much of its
// lookups' time on TLB misses with 4 kB pages: its whole 2 MB pages are offered
// to transparent huge pages (Linux; a hint, ignored where unavailable), before
// the memory is first touched, so that its faults can take huge pages.
inline void advise_huge_pages(void* p, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
    constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
    if (bytes < 4 * kHuge) return;
    auto start = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
    if (end > start) (void)madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

class PgMemoryResource final : public std::pmr::memory_resource {
public:
    // limit: the most `context` (with its children) may hold, in bytes; 0 = no limit.
    explicit PgMemoryResource(MemoryContext context, Size limit = 0) : context_(context), limit_(limit) {}
    MemoryContext context() const { return context_; }
    Size limit() const { return limit_; }

private:
    void* do_allocate(std::size_t bytes, std::size_t alignment) override {
        // palloc aligns to MAXIMUM_ALIGNOF; a larger alignment (std::pmr's arenas ask
        // for alignof(max_align_t)) over-allocates and keeps the chunk start just below.
        std::size_t extra = alignment > MAXIMUM_ALIGNOF ? alignment : 0;
        if (bytes >= MaxAllocHugeSize - extra) throw std::bad_alloc();
        if (limit_) {
            std::size_t need = MemoryContextMemAllocated(context_, true) + bytes + extra;
            if (need > limit_) throw MemoryLimitExceeded{need, limit_};
        }
        void* p =
            MemoryContextAllocExtended(context_, (bytes ? bytes : 1) + extra, MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
        if (!p) throw std::bad_alloc();
        advise_huge_pages(p, bytes + extra);
        if (!extra) return p;
        auto start = reinterpret_cast<std::uintptr_t>(p);
        auto aligned = (start + sizeof(void*) + alignment - 1) & ~(std::uintptr_t(alignment) - 1);
        reinterpret_cast<void**>(aligned)[-1] = p;
        return reinterpret_cast<void*>(aligned);
    }
    void do_deallocate(void* p, std::size_t, std::size_t alignment) override {
        pfree(alignment > MAXIMUM_ALIGNOF ? static_cast<void**>(p)[-1] : p);
    }
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
        auto* o = dynamic_cast<const PgMemoryResource*>(&other);
        return o && o->context_ == context_;
    }

    MemoryContext context_;
    Size limit_;
};

// A bound for one aggregate state among many in a shared context (each group's
// state of a GROUP BY): what the state holds, by its own count (`held(owner)`: its
// tables by their capacities), plus a new allocation may not pass `limit`. Checked
// before a table grows, so the old table and the new one together stay within it;
// check() after the state grew without allocating.
class StateBoundResource final : public std::pmr::memory_resource {
public:
    using Held = std::size_t (*)(const void* owner);
    StateBoundResource(MemoryContext context, Size limit, Held held, const void* owner)
        : upstream_(context), limit_(limit), held_(held), owner_(owner) {}
    Size limit() const { return limit_; }
    void check(std::size_t more = 0) const {
        std::size_t need = held_(owner_) + more;
        if (need > limit_) throw MemoryLimitExceeded{need, limit_};
    }

private:
    void* do_allocate(std::size_t bytes, std::size_t alignment) override {
        check(bytes);
        return upstream_.allocate(bytes, alignment);
    }
    void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
        upstream_.deallocate(p, bytes, alignment);
    }
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

    PgMemoryResource upstream_;
    Size limit_;
    Held held_;
    const void* owner_;
};

// Runs f, whose containers allocate from a PgMemoryResource limited by the
// setting `setting`: crossing it is that limit's ERROR (54000), worded with the
// limit the resource was made with (the setting may have changed since).
template <typename F>
decltype(auto) within_limit(const char* setting, const char* what, const char* hint, F&& f) {
    try {
        return f();
    } catch (const MemoryLimitExceeded& e) {
        MemoryBound{e.limit, setting}.check(e.need, what, hint);
        fail(ErrorKind::Internal, "a memory limit was crossed below it");  // need > limit: not reached
    }
}

template <typename F>
decltype(auto) within_memory_limit(const char* what, const char* hint, F&& f) {
    return within_limit("privrisk.memory_limit", what, hint, std::forward<F>(f));
}

// Placement-constructs a T in `context`; it is never destroyed, so T must own
// nothing outside that context (its memory goes away with the context).
template <typename T, typename... Args>
T* construct_in(MemoryContext context, Args&&... args) {
    static_assert(alignof(T) <= MAXIMUM_ALIGNOF, "palloc aligns to MAXIMUM_ALIGNOF");
    void* memory = pg_call([&] { return MemoryContextAllocZero(context, sizeof(T)); });
    return new (memory) T(std::forward<Args>(args)...);
}

// The memory context of the aggregate running this support function; called any
// other way (directly from SQL) it is an error, since the state would not survive.
inline MemoryContext aggregate_context(FunctionCallInfo fcinfo) {
    MemoryContext context;
    if (!AggCheckCallContext(fcinfo, &context)) fail(ErrorKind::InvalidParameter, "called outside an aggregate");
    return context;
}

}  // namespace privrisk::pg
