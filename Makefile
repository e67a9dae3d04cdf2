# PGXS build of the privrisk module. The C++ core and the adapters compile into
# one shared library; CMakeLists.txt builds the unit tests and client programs.
MODULE_big = privrisk
MODULEDIR  = extension
DATA       = extension/privrisk.control $(wildcard extension/privrisk--*.sql)
OBJS       = $(patsubst %.cpp,%.o,$(sort $(wildcard src/core/*.cpp src/pg/*.cpp)))
PG_CPPFLAGS = -Isrc/core -Isrc/pg
PG_CXXFLAGS = -std=c++17 -Wall -Wno-missing-field-initializers -Wno-register
SHLIB_LINK  = -lstdc++ -lsodium

REGRESS      = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --load-extension=privrisk

# No LLVM bitcode: clang is not needed to build or install.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

$(OBJS): $(wildcard src/core/*.hpp src/pg/*.hpp)
