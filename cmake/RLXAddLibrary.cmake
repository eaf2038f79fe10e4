# rlx_add_library(name sources... [DEPENDS targets...] [LINK_LIBS libs...])
#
# A static, position-independent library of the project, linked against the
# shared libMLIR, exported in the RLXTargets set for find_package(RLX).
function(rlx_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  add_library(RLX::${name} ALIAS ${name})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${RLX_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${RLX_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_include_directories(${name} SYSTEM PUBLIC
    ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  # Code that includes MLIR headers must match libMLIR's RTTI setting.
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${name} PUBLIC $<$<COMPILE_LANGUAGE:CXX>:-fno-rtti>)
  endif()
  set_property(GLOBAL APPEND PROPERTY RLX_EXPORTED_LIBS ${name})
  install(TARGETS ${name} EXPORT RLXTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()
