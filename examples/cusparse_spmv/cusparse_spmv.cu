// cusparse_spmv: y = alpha * A * x + beta * y with A in CSR format, using the
// cuSPARSE generic SpMV API. The CSR structure is derived from a dense matrix
// whose non-zeros per row are counted on the device with cusparseSnnz.
//
// Build: nvcc -O2 -o cusparse_spmv cusparse_spmv.cu -lcusparse

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>

#define CHECK_CUDA(func)                                                      \
    do {                                                                      \
        cudaError_t status = (func);                                          \
        if (status != cudaSuccess) {                                          \
            printf("CUDA API failed at line %d with error: %s (%d)\n",        \
                   __LINE__, cudaGetErrorString(status), status);             \
            return EXIT_FAILURE;                                              \
        }                                                                     \
    } while (0)

#define CHECK_CUSPARSE(func)                                                  \
    do {                                                                      \
        cusparseStatus_t status = (func);                                     \
        if (status != CUSPARSE_STATUS_SUCCESS) {                              \
            printf("CUSPARSE API failed at line %d with status %d\n",         \
                   __LINE__, (int)status);                                    \
            return EXIT_FAILURE;                                              \
        }                                                                     \
    } while (0)

int main()
{
    // Pentadiagonal test matrix, stored column-major for cusparseSnnz.
    const int m = 1000, n = 1000;
    std::vector<float> dense((size_t)m * n, 0.0f);
    for (int i = 0; i < m; ++i) {
        for (int d = -2; d <= 2; ++d) {
            int j = i + d;
            if (j >= 0 && j < n && (d == 0 || (i + j) % 3 != 0)) {
                dense[(size_t)j * m + i] = (d == 0) ? 4.0f : -1.0f / (1 + abs(d));
            }
        }
    }
    std::vector<float> h_x(n), h_y(m, 1.0f);
    for (int j = 0; j < n; ++j) h_x[j] = 1.0f + 0.01f * (j % 100);
    const float alpha = 2.0f, beta = 0.5f;

    cusparseHandle_t handle = NULL;
    CHECK_CUSPARSE(cusparseCreate(&handle));

    cusparseMatDescr_t descr = NULL;
    CHECK_CUSPARSE(cusparseCreateMatDescr(&descr));
    CHECK_CUSPARSE(cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL));
    CHECK_CUSPARSE(cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO));

    float *d_dense;
    int *d_nnzPerRow;
    CHECK_CUDA(cudaMalloc((void **)&d_dense, dense.size() * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_nnzPerRow, m * sizeof(int)));
    CHECK_CUDA(cudaMemcpy(d_dense, dense.data(), dense.size() * sizeof(float),
                          cudaMemcpyHostToDevice));

    int nnz = 0;
    CHECK_CUSPARSE(cusparseSnnz(handle, CUSPARSE_DIRECTION_ROW, m, n, descr,
                                d_dense, m, d_nnzPerRow, &nnz));
    std::vector<int> nnzPerRow(m);
    CHECK_CUDA(cudaMemcpy(nnzPerRow.data(), d_nnzPerRow, m * sizeof(int),
                          cudaMemcpyDeviceToHost));

    // Row offsets from the device-side counts, column indices and values from the host copy.
    std::vector<int> rowPtr(m + 1, 0), colInd;
    std::vector<float> values;
    colInd.reserve(nnz);
    values.reserve(nnz);
    for (int i = 0; i < m; ++i) {
        rowPtr[i + 1] = rowPtr[i] + nnzPerRow[i];
        for (int j = 0; j < n; ++j) {
            float v = dense[(size_t)j * m + i];
            if (v != 0.0f) {
                colInd.push_back(j);
                values.push_back(v);
            }
        }
    }
    if ((int)values.size() != nnz || rowPtr[m] != nnz) {
        printf("nnz mismatch: device %d, host %zu\n", nnz, values.size());
        return EXIT_FAILURE;
    }
    printf("A: %d x %d, nnz = %d\n", m, n, nnz);

    int *d_rowPtr, *d_colInd;
    float *d_values, *d_x, *d_y;
    CHECK_CUDA(cudaMalloc((void **)&d_rowPtr, (m + 1) * sizeof(int)));
    CHECK_CUDA(cudaMalloc((void **)&d_colInd, nnz * sizeof(int)));
    CHECK_CUDA(cudaMalloc((void **)&d_values, nnz * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_x, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_y, m * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d_rowPtr, rowPtr.data(), (m + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_colInd, colInd.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_values, values.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_y, h_y.data(), m * sizeof(float), cudaMemcpyHostToDevice));

    cusparseSpMatDescr_t matA;
    cusparseDnVecDescr_t vecX, vecY;
    CHECK_CUSPARSE(cusparseCreateCsr(&matA, m, n, nnz, d_rowPtr, d_colInd, d_values,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CHECK_CUSPARSE(cusparseCreateDnVec(&vecX, n, d_x, CUDA_R_32F));
    CHECK_CUSPARSE(cusparseCreateDnVec(&vecY, m, d_y, CUDA_R_32F));

    size_t bufferSize = 0;
    void *d_buffer = NULL;
    CHECK_CUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                           &alpha, matA, vecX, &beta, vecY, CUDA_R_32F,
                                           CUSPARSE_SPMV_ALG_DEFAULT, &bufferSize));
    CHECK_CUDA(cudaMalloc(&d_buffer, bufferSize > 0 ? bufferSize : 1));

    CHECK_CUSPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                &alpha, matA, vecX, &beta, vecY, CUDA_R_32F,
                                CUSPARSE_SPMV_ALG_DEFAULT, d_buffer));

    std::vector<float> result(m);
    CHECK_CUDA(cudaMemcpy(result.data(), d_y, m * sizeof(float), cudaMemcpyDeviceToHost));

    int bad = 0;
    for (int i = 0; i < m; ++i) {
        float ref = 0.0f;
        for (int j = 0; j < n; ++j) ref += dense[(size_t)j * m + i] * h_x[j];
        ref = alpha * ref + beta * h_y[i];
        if (fabsf(ref - result[i]) > 1e-4f * fmaxf(1.0f, fabsf(ref))) ++bad;
    }
    printf("y[0..3] = %f %f %f %f\n", result[0], result[1], result[2], result[3]);

    CHECK_CUSPARSE(cusparseDestroySpMat(matA));
    CHECK_CUSPARSE(cusparseDestroyDnVec(vecX));
    CHECK_CUSPARSE(cusparseDestroyDnVec(vecY));
    CHECK_CUSPARSE(cusparseDestroyMatDescr(descr));
    CHECK_CUSPARSE(cusparseDestroy(handle));
    CHECK_CUDA(cudaFree(d_buffer));
    CHECK_CUDA(cudaFree(d_dense));
    CHECK_CUDA(cudaFree(d_nnzPerRow));
    CHECK_CUDA(cudaFree(d_rowPtr));
    CHECK_CUDA(cudaFree(d_colInd));
    CHECK_CUDA(cudaFree(d_values));
    CHECK_CUDA(cudaFree(d_x));
    CHECK_CUDA(cudaFree(d_y));

    printf("cusparse_spmv %s (%d mismatches)\n", bad ? "FAILED" : "PASSED", bad);
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
