# schema_c.cmake - turns reports/schema.sql into the C source of
# store_schema_sql, at build time (the custom command of sp_store in the top
# CMakeLists.txt): cmake -DIN=reports/schema.sql -DOUT=store_schema.c -P schema_c.cmake
#
# The text is written as bytes, so no character of the SQL needs escaping and
# the array is the file byte for byte, followed by a NUL.  schema.sql is the
# only copy of the schema in the tree; editing it is the only way to change
# what a new database is given.
if(NOT DEFINED IN OR NOT DEFINED OUT)
  message(FATAL_ERROR "usage: cmake -DIN=schema.sql -DOUT=store_schema.c -P schema_c.cmake")
endif()
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
set(body "")
set(i 0)
while(i LESS n)
  string(SUBSTRING "${hex}" ${i} 32 chunk)     # 16 bytes a line
  string(REGEX REPLACE "(..)" "0x\\1, " chunk "${chunk}")
  string(STRIP "${chunk}" chunk)
  string(APPEND body "\t${chunk}\n")
  math(EXPR i "${i} + 32")
endwhile()
file(WRITE "${OUT}"
  "/* Generated from reports/schema.sql by reports/store/schema_c.cmake: do not edit. */\n"
  "#include \"sandproof/store.h\"\n\n"
  "const char store_schema_sql[] = {\n${body}\t0x00\n};\n")
