# cmake -DSRC=DIR -DOUT=FILE -P cmake/revision.cmake - the git revision
# of the source tree DIR (short HEAD, "" outside git) into FILE, rewritten
# only when it changed.  Installed as share/sandproof/revision: what an
# installed `sandproof` records as its git_revision (harness/datadir.h),
# never asking the build tree it came from.
find_package(Git QUIET)
set(rev "")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SRC} rev-parse --short HEAD
    OUTPUT_VARIABLE rev ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    set(rev "")
  endif()
endif()
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL "${rev}\n")
  file(WRITE ${OUT} "${rev}\n")
endif()
