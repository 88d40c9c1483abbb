# ci/mingw-w64.cmake - the CMake toolchain of the mingw-w64 cross-build
# (ci/cross-windows.sh; platforms/windows/README.md).
#
#   cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=ci/mingw-w64.cmake \
#         -DSANDPROOF_DEPS_PREFIX=build-windows/deps
#
# SANDPROOF_DEPS_PREFIX holds the static mingw builds of Lua 5.4, sqlite3 and
# cJSON made from Debian's source packages (include/, lib/); pkg-config is
# not used under cross (CMakeLists.txt's windows branch imports them).
# When wine is on PATH it is the ctest emulator: the .exe tests run under
# Wine, which smokes plumbing and is never a Windows result.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_AR x86_64-w64-mingw32-ar CACHE FILEPATH "")
set(CMAKE_RANLIB x86_64-w64-mingw32-ranlib CACHE FILEPATH "")
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 ${SANDPROOF_DEPS_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# try_compile and the toolchain see the deps prefix too
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SANDPROOF_DEPS_PREFIX)
find_program(SANDPROOF_WINE NAMES wine wine64)
if(SANDPROOF_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${SANDPROOF_WINE})
endif()
