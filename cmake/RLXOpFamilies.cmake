# Reads the op family list from RLXOpFamilies.def into RLX_OP_FAMILIES.
file(STRINGS ${RLX_SOURCE_DIR}/include/rlx/Dialect/RLX/IR/RLXOpFamilies.def
  _rlx_family_lines REGEX "^RLX_OP_FAMILY\\(")
set(RLX_OP_FAMILIES)
foreach(line ${_rlx_family_lines})
  string(REGEX REPLACE "^RLX_OP_FAMILY\\(([A-Za-z0-9]+)\\).*" "\\1" family
    "${line}")
  list(APPEND RLX_OP_FAMILIES ${family})
endforeach()
