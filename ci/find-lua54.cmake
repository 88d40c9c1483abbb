# ci/find-lua54.cmake - Lua 5.4 through pkg-config, under whichever name the
# platform gives it (issue 32 §7), as the imported target PkgConfig::LUA.
#
# Debian and Ubuntu ship lua5.4.pc (and lua54.pc, lua-5.4.pc); Fedora and
# Homebrew ship lua.pc or lua-5.4.pc; MSYS2's mingw-w64-x86_64-lua ships
# only lua.pc.  A versioned name is tried first; the bare name "lua" is
# accepted only when its version is 5.4.x, since it may be another Lua.
# Anything else is a configure error naming what was found.  Needs
# find_package(PkgConfig) first.  Sets LUA_FOUND, LUA_VERSION and
# LUA_MODULE_NAME (which .pc answered).
pkg_search_module(LUA QUIET IMPORTED_TARGET lua5.4 lua54 lua-5.4)
if(NOT LUA_FOUND)
  pkg_search_module(LUA QUIET IMPORTED_TARGET lua)
  if(LUA_FOUND AND NOT LUA_VERSION MATCHES "^5\\.4(\\.|$)")
    message(FATAL_ERROR "pkg-config's lua.pc is Lua ${LUA_VERSION}, not 5.4: install Lua 5.4 "
      "(Debian: liblua5.4-dev; MSYS2: mingw-w64-x86_64-lua) or point PKG_CONFIG_PATH at it")
  endif()
endif()
if(NOT LUA_FOUND)
  message(FATAL_ERROR "Lua 5.4 not found by pkg-config (tried lua5.4, lua54, lua-5.4, lua): "
    "install it (Debian: liblua5.4-dev; MSYS2: mingw-w64-x86_64-lua)")
endif()
message(STATUS "Lua ${LUA_VERSION} from pkg-config module ${LUA_MODULE_NAME}")
