# Installs torchlet into a scratch prefix, builds examples/ as an outside project against it
# with find_package(torchlet), and runs the course's program. Invoked by ctest with
# -DBUILD_DIR, -DSOURCE_DIR and -DWORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples -B ${WORK_DIR}/build -G Ninja
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build --target iris_mlp)
run(${WORK_DIR}/build/iris_mlp)
message("${last_output}")
string(REGEX MATCH "test accuracy ([0-9.]+)" match "${last_output}")
if(NOT match OR CMAKE_MATCH_1 LESS 0.9667)
  message(FATAL_ERROR "expected test accuracy >= 0.9667, got: ${last_output}")
endif()
