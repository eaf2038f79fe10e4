# Installs headers, TableGen sources, generated includes, the libraries and
# an RLXConfig.cmake package so other projects can find_package(RLX).
include(CMakePackageConfigHelpers)

install(DIRECTORY ${RLX_SOURCE_DIR}/include/rlx
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td" PATTERN "*.def")
install(DIRECTORY ${RLX_BINARY_DIR}/include/rlx
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc")

set(RLX_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/rlx)
install(EXPORT RLXTargets NAMESPACE RLX:: DESTINATION ${RLX_INSTALL_CMAKEDIR})

configure_package_config_file(${RLX_SOURCE_DIR}/cmake/RLXConfig.cmake.in
  ${RLX_BINARY_DIR}/cmake/RLXConfig.cmake
  INSTALL_DESTINATION ${RLX_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${RLX_BINARY_DIR}/cmake/RLXConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${RLX_BINARY_DIR}/cmake/RLXConfig.cmake
  ${RLX_BINARY_DIR}/cmake/RLXConfigVersion.cmake
  DESTINATION ${RLX_INSTALL_CMAKEDIR})
