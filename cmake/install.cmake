# cmake/install.cmake - included last by CMakeLists.txt: what `cmake
# --install` lays out, how the installed programs find it, the man pages,
# and the .deb (CPack).  packaging/README.md describes the layout.
#
#   PREFIX/bin/sandproof, PREFIX/bin/sandproof-ref
#   PREFIX/libexec/sandproof/sandproof-probe   run by the harness only (inside
#                                              the sandboxes under test), so
#                                              not on PATH
#   PREFIX/share/sandproof/lua/, runners/      the harness's Lua libraries and
#                                              the runner adapters
#   PREFIX/share/sandproof/scenarios/          the catalogue
#   PREFIX/share/sandproof/revision            the git revision built from
#   PREFIX/share/man/man1/sandproof.1, sandproof-ref.1
#   PREFIX/share/doc/sandproof/                README.md and docs/*.md
# The results schema is compiled into the programs (reports/store), so it
# is not installed.
include(GNUInstallDirs)

# ---- where an installed copy finds its data: relative to its bin/ ----------
# (harness/datadir.h).  Relative, so a prefix moved or chosen at install
# time (cmake --install --prefix, CPack's /usr, a Homebrew keg) still holds.
set(SP_DATADIR ${CMAKE_INSTALL_DATADIR}/sandproof)
set(SP_PROBEDIR ${CMAKE_INSTALL_LIBEXECDIR}/sandproof)
file(RELATIVE_PATH SP_REL_DATA ${CMAKE_INSTALL_FULL_BINDIR}
  ${CMAKE_INSTALL_FULL_DATADIR}/sandproof)
file(RELATIVE_PATH SP_REL_PROBE ${CMAKE_INSTALL_FULL_BINDIR}
  ${CMAKE_INSTALL_FULL_LIBEXECDIR}/sandproof)
target_compile_definitions(sp_harness PRIVATE DATADIR_REL_DATA="${SP_REL_DATA}"
  DATADIR_REL_PROBE="${SP_REL_PROBE}")

# The build tree says it is one: the harness next to this marker reads the
# source tree (datadir.h).  Never installed, so an installed copy cannot.
file(GENERATE OUTPUT $<TARGET_FILE_DIR:sandproof>/sandproof-build-tree
  CONTENT "This directory is a build tree of ${CMAKE_CURRENT_SOURCE_DIR}: the sandproof next to this file reads its Lua libraries, adapters and scenarios from there (harness/datadir.h).\n")

# The revision, at every build (cmake/revision.cmake rewrites it only when
# it changed).
set(SP_REVISION_FILE ${CMAKE_BINARY_DIR}/sandproof-revision)
add_custom_target(sp_revision ALL
  COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_CURRENT_SOURCE_DIR} -DOUT=${SP_REVISION_FILE}
    -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/revision.cmake
  BYPRODUCTS ${SP_REVISION_FILE} VERBATIM)

# ---- man pages: from each program's --help (docs/man/README.md) ------------
# They run the programs just built, so a cross build (mingw) has none.
set(SP_MAN_PAGES)
if(NOT CMAKE_CROSSCOMPILING)
  find_program(SP_AWK NAMES awk gawk mawk nawk REQUIRED)
  set(SP_SUMMARY_sandproof
    "replay sandbox conformance scenarios against runners and record what held")
  set(SP_SUMMARY_sandproof-ref "the reference sandbox runner of the sandproof contract")
  set(SP_SEE_sandproof "sandproof-ref(1)")
  set(SP_SEE_sandproof-ref "sandproof(1)")
  foreach(prog sandproof sandproof-ref)
    set(page ${CMAKE_BINARY_DIR}/man/${prog}.1)
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
      COMMAND ${CMAKE_COMMAND} -DPROG=$<TARGET_FILE:${prog}> -DNAME=${prog}
        "-DSUMMARY=${SP_SUMMARY_${prog}}" "-DSEE_ALSO=${SP_SEE_${prog}}" -DAWK=${SP_AWK}
        -DSCRIPT=${CMAKE_CURRENT_SOURCE_DIR}/docs/man/help-to-man.awk -DOUT=${page}
        -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/manpage.cmake
      DEPENDS ${prog} ${CMAKE_CURRENT_SOURCE_DIR}/docs/man/help-to-man.awk
        ${CMAKE_CURRENT_SOURCE_DIR}/cmake/manpage.cmake
      COMMENT "Generating ${prog}(1) from ${prog} --help" VERBATIM)
    list(APPEND SP_MAN_PAGES ${page})
  endforeach()
  add_custom_target(sp_man ALL DEPENDS ${SP_MAN_PAGES})
endif()

# ---- the install rules --------------------------------------------------
install(TARGETS sandproof sandproof-ref RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Windows: sandproof-ref starts sandproof-canary.exe from its own directory
# before every command (platforms/windows/enforce/canary.c); without it every
# run is refused, so it is installed beside sandproof-ref.
if(TARGET sandproof-canary)
  install(TARGETS sandproof-canary RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(TARGETS sandproof-probe RUNTIME DESTINATION ${SP_PROBEDIR})
install(DIRECTORY harness/lua/ DESTINATION ${SP_DATADIR}/lua FILES_MATCHING PATTERN "*.lua")
install(DIRECTORY harness/runners/ DESTINATION ${SP_DATADIR}/runners
  FILES_MATCHING PATTERN "*.lua")
install(DIRECTORY scenarios/ DESTINATION ${SP_DATADIR}/scenarios FILES_MATCHING PATTERN "*.lua")
install(FILES ${SP_REVISION_FILE} DESTINATION ${SP_DATADIR} RENAME revision)
if(SP_MAN_PAGES)
  install(FILES ${SP_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
file(GLOB SP_DOCS ${CMAKE_CURRENT_SOURCE_DIR}/docs/*.md)
install(FILES README.md ${SP_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR})
# the worked example runner of docs/YOUR-RUNNER.md, for a user without the
# source tree (PREFIX/share/doc/sandproof/examples/runners)
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples USE_SOURCE_PERMISSIONS)

# ---- tests of the install (not of a cross or a windows build) -------------
if(NOT CMAKE_CROSSCOMPILING AND NOT SANDPROOF_PLATFORM STREQUAL "windows")
  # cmake --install into a temp prefix: the layout, the data found there
  # (sandproof env), a moved prefix, a copy with no data refused, the
  # man pages through man -l.
  add_test(NAME test_install COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/packaging/tests/test_install.sh
    ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(test_install PROPERTIES TIMEOUT 300 LABELS portable)
  add_test(NAME test_man COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/docs/man/tests/test_man.sh
    ${CMAKE_BINARY_DIR}/man $<TARGET_FILE:sandproof> $<TARGET_FILE:sandproof-ref>)
  set_tests_properties(test_man PROPERTIES TIMEOUT 120 LABELS portable)
endif()

# ---- the GitHub Action, the workflow, the other OSes' packages (linux) ------
if(SANDPROOF_PLATFORM STREQUAL "linux")
  # ci/action.sh as action.yml runs it: install from this build, ref passes
  # the gate, none fails it on its escapes, a baseline's lost passes fail it.
  add_test(NAME test_action COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ci/tests/test_action.sh
    ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(test_action PROPERTIES TIMEOUT 300)
  # The workflow and action.yml load as YAML with the keys GitHub requires
  # (Debian's python3-yaml: /usr/bin/python3 where it exists).  The
  # workflow is read where GitHub reads it.
  set(SP_WORKFLOW ${CMAKE_CURRENT_SOURCE_DIR}/.github/workflows/sandproof.yml)
  add_test(NAME test_github_yaml COMMAND sh -c
    "py=/usr/bin/python3; [ -x \"$py\" ] || py=python3; exec \"$py\" \"$@\"" sh
    ${CMAKE_CURRENT_SOURCE_DIR}/ci/check_github.py ${SP_WORKFLOW}
    ${CMAKE_CURRENT_SOURCE_DIR}/action.yml ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(test_github_yaml PROPERTIES TIMEOUT 60)
  # The Homebrew formula and the PKGBUILD, as far as this machine can
  # check them (ruby -c and a stand-in DSL, bash -n and a recording cmake).
  add_test(NAME test_packaging COMMAND sh
    ${CMAKE_CURRENT_SOURCE_DIR}/packaging/tests/test_packaging.sh ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(test_packaging PROPERTIES TIMEOUT 60)
endif()

# ---- the .deb: cpack -G DEB (ci/deb.sh builds, installs and removes it) ----
set(CPACK_PACKAGE_NAME sandproof)
set(CPACK_PACKAGE_VENDOR sandproof)
set(CPACK_PACKAGE_CONTACT "sandproof developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "conformance suite for process sandboxes, with a reference runner")
set(CPACK_PACKAGE_DESCRIPTION
  "sandproof replays attack and lifecycle scenarios against process sandboxes (its reference runner sandproof-ref, bubblewrap, firejail, Codex, srt, or any runner of your own) and records what held in sqlite.")
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR TGZ)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(CPACK_GENERATOR DEB)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# What the programs link (ci/deb.sh checks this list covers every library
# the installed files need); the probe is static.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, liblua5.4-0, libseccomp2, libcjson1, libsqlite3-0")
include(CPack)
