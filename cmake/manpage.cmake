# cmake -DPROG=EXE -DNAME=NAME -DSUMMARY=TEXT -DSEE_ALSO=TEXT -DAWK=AWK
#       -DSCRIPT=docs/man/help-to-man.awk -DOUT=FILE -P cmake/manpage.cmake
# NAME(1) from `EXE --help` and `EXE --version` (docs/man/README.md): the
# help is the one source, so the page cannot say what the program does not.
execute_process(COMMAND ${PROG} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROG} --help exited ${rc}: no man page for ${NAME}")
endif()
execute_process(COMMAND ${PROG} --version OUTPUT_VARIABLE version RESULT_VARIABLE rc
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROG} --version exited ${rc}: no man page for ${NAME}")
endif()
file(WRITE ${OUT}.help "${help}")
execute_process(COMMAND ${AWK} -f ${SCRIPT} -v prog=${NAME} -v version=${version}
    -v summary=${SUMMARY} -v see_also=${SEE_ALSO}
  INPUT_FILE ${OUT}.help OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${AWK} -f ${SCRIPT} exited ${rc}: no man page for ${NAME}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
file(REMOVE ${OUT}.help)
