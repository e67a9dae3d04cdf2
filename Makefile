# PGXS build of the privrisk module. The C++ core and the adapters compile into
# one shared library; CMakeLists.txt builds the unit tests and client programs.
MODULE_big = privrisk
MODULEDIR  = extension
UPGRADE_0_9 = $(sort $(wildcard extension/0.9/*.sql))
DATA       = extension/privrisk.control $(filter-out extension/privrisk--0.8--0.9.sql,$(wildcard extension/privrisk--*.sql))
DATA_built = extension/privrisk--0.8--0.9.sql
OBJS       = $(patsubst %.cpp,%.o,$(sort $(wildcard src/core/*/*.cpp src/pg/*/*.cpp)))
PG_CPPFLAGS = -Isrc/core -Isrc/pg
PG_CXXFLAGS = -std=c++17 -Wall -Wno-missing-field-initializers -Wno-register
SHLIB_LINK  = -lstdc++ -lsodium

# pg_regress suites live in test/regress/{sql,expected}; results go to build/regress.
REGRESS      = $(patsubst test/regress/sql/%.sql,%,$(sort $(wildcard test/regress/sql/*.sql)))
REGRESS_OPTS = --load-extension=privrisk --inputdir=test/regress --outputdir=build/regress

# make SANITIZE=1 (scripts/test --sanitize): AddressSanitizer and UBSan, and any
# undefined behaviour stops the backend so that no report can scroll by unseen.
# scripts/test builds this in a copy of the sources (build/sanitize/module), never
# here: the objects live beside their sources, and sanitized ones left in the tree
# would be linked into the next normal build. In the tree, SANITIZE=1 only serves
# installcheck, whose results then go beside the sanitized build.
ifdef SANITIZE
SANITIZE_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
PG_CXXFLAGS  += $(SANITIZE_FLAGS)
SHLIB_LINK   += $(SANITIZE_FLAGS)
REGRESS_OPTS += --outputdir=build/sanitize/regress
endif

# No LLVM bitcode: clang is not needed to build or install.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The 0.9 upgrade is written as fragments, one per concern; this joins them.
extension/privrisk--0.8--0.9.sql: $(UPGRADE_0_9)
	cat $^ > $@

$(OBJS): $(wildcard src/core/*/*.hpp src/pg/*/*.hpp)
