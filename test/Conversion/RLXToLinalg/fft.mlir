// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// complex_norm_sq and conjugate are elementwise generics on complex values.
// CHECK-LABEL: func.func @complex_helpers
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xcomplex<f32>>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: complex.re
// CHECK: complex.im
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xcomplex<f32>>) outs(%{{.*}} : tensor<4x8xcomplex<f32>>)
// CHECK: complex.conj
// CHECK-NOT: rlx.
func.func @complex_helpers(%z: tensor<4x8xcomplex<f32>>) -> (tensor<4x8xf32>, tensor<4x8xcomplex<f32>>) {
  %0 = rlx.complex_norm_sq %z : tensor<4x8xcomplex<f32>>
  %1 = rlx.conjugate %z : tensor<4x8xcomplex<f32>>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xcomplex<f32>>
}

// -----

// A power-of-two length (N = 4 in the real-block layout): the re and im
// halves are read into planes, gathered in bit-reversed order, then one generic
// per radix-2 stage (log2(4) = 2) reads its pair and the stage's twiddle
// table (exp(-i pi m / stride), m < stride, computed by a generic over m);
// the halves are put back
// unscaled (norm = backward).
// CHECK-LABEL: func.func @fft_radix2
// CHECK-SAME: (%[[X:.*]]: tensor<3x8xf32>)
// CHECK: %[[P:.*]]:2 = linalg.generic
// CHECK: %[[K:.*]] = linalg.index 1
// CHECK: %[[KIM:.*]] = arith.addi %[[K]], %c4
// CHECK: tensor.extract %[[X]][%{{.*}}, %[[K]]]
// CHECK: tensor.extract %[[X]][%{{.*}}, %[[KIM]]]
// CHECK: %[[REV:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: arith.shrui
// CHECK: tensor.extract %[[P]]#0
// CHECK: tensor.extract %[[P]]#1
// CHECK: %[[T0:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}}, %{{.*}} : tensor<1xf32>, tensor<1xf32>)
// CHECK: %[[S0:.*]]:2 = linalg.generic
// CHECK: tensor.extract %[[REV]]#0
// CHECK: tensor.extract %[[T0]]#0
// CHECK: arith.select
// CHECK: %[[T1:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}}, %{{.*}} : tensor<2xf32>, tensor<2xf32>)
// CHECK: %[[S1:.*]]:2 = linalg.generic
// CHECK: tensor.extract %[[S0]]#0
// CHECK: tensor.extract %[[T1]]#0
// CHECK: tensor.extract %[[T1]]#1
// CHECK-NOT: linalg.generic
// CHECK: %[[OUT:.*]] = tensor.insert_slice %[[S1]]#0 into %{{.*}}[0, 0] [3, 4] [1, 1]
// CHECK: %[[OUT2:.*]] = tensor.insert_slice %[[S1]]#1 into %[[OUT]][0, 4] [3, 4] [1, 1]
// CHECK: return %[[OUT2]]
func.func @fft_radix2(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %0 = rlx.fft %x : tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// Another length (N = 5, complex<f32>, inverse, ortho): split into planes,
// one contraction over (batch, k, n) reading the twiddle table at n * k mod
// 5 (+ sign: inverse), then one generic scales by 1/sqrt(5) and rebuilds
// the complex values.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @fft_dft
// CHECK: %[[P:.*]]:2 = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x5xcomplex<f32>>) outs(%{{.*}}, %{{.*}} : tensor<2x5xf32>, tensor<2x5xf32>)
// CHECK: complex.re
// CHECK: complex.im
// The table cos / sin(2 pi m / 5) is computed by a generic over m in f64
// (exact on the axes), not a constant of one value per element.
// CHECK: %[[TW:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}}, %{{.*}} : tensor<5xf32>, tensor<5xf32>)
// CHECK: linalg.index 0
// CHECK: arith.remsi
// CHECK: math.cos %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f64
// CHECK: arith.truncf
// CHECK: arith.truncf
// CHECK: %[[D:.*]]:2 = linalg.generic {indexing_maps = [#[[IN]], #[[IN]], #[[OUT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[P]]#0, %[[P]]#1 :
// CHECK: %[[K:.*]] = linalg.index 1
// CHECK: %[[N:.*]] = linalg.index 2
// CHECK: %[[KN:.*]] = arith.muli %[[K]], %[[N]]
// CHECK: %[[M:.*]] = arith.remui %[[KN]], %c5
// CHECK: tensor.extract %[[TW]]#0[%[[M]]]
// CHECK: tensor.extract %[[TW]]#1[%[[M]]]
// CHECK: %[[SCALE:.*]] = arith.constant 0.44721359 : f32
// CHECK: linalg.generic {{.*}} ins(%[[D]]#0, %[[D]]#1 :
// CHECK: arith.mulf %{{.*}}, %[[SCALE]]
// CHECK: arith.mulf %{{.*}}, %[[SCALE]]
// CHECK: complex.create
func.func @fft_dft(%z: tensor<2x5xcomplex<f32>>) -> tensor<2x5xcomplex<f32>> {
  %0 = rlx.fft inverse %z {norm = #rlx.fft_norm<ortho>} : tensor<2x5xcomplex<f32>>
  return %0 : tensor<2x5xcomplex<f32>>
}

// -----

// N = 1 is the identity up to the norm scale (forward norm, forward
// direction: none); dynamic batch dims are read with tensor.dim.
// CHECK-LABEL: func.func @fft_length_one
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: tensor.insert_slice
// CHECK: tensor.insert_slice
func.func @fft_length_one(%x: tensor<?x2xf64>) -> tensor<?x2xf64> {
  %0 = rlx.fft %x {norm = #rlx.fft_norm<forward>} : tensor<?x2xf64>
  return %0 : tensor<?x2xf64>
}

// -----

// A butterfly stage is one generic over the state: each element reads its
// pair, gate, rev and twiddle by index; rev swaps the outputs (xor with "is
// the low element"), a closed gate copies the element.
// CHECK-LABEL: func.func @butterfly
// CHECK-SAME: (%[[S:.*]]: tensor<2x8x2xf32>, %[[G:.*]]: tensor<4xi1>, %[[R:.*]]: tensor<4xi1>, %[[WR:.*]]: tensor<4xf32>, %[[WI:.*]]: tensor<4xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[S]] : tensor<2x8x2xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[LOW:.*]] = arith.cmpi ult
// CHECK: tensor.extract %[[S]]
// CHECK: tensor.extract %[[WR]][%[[J:.*]]]
// CHECK: tensor.extract %[[WI]][%[[J]]]
// CHECK: tensor.extract %[[G]][%[[J]]]
// CHECK: %[[REV:.*]] = tensor.extract %[[R]][%[[J]]]
// CHECK: %[[SUM:.*]] = arith.xori %[[LOW]], %[[REV]]
// CHECK: arith.select %[[SUM]]
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[IN]] : f32
func.func @butterfly(%s: tensor<2x8x2xf32>, %g: tensor<4xi1>, %r: tensor<4xi1>, %wr: tensor<4xf32>, %wi: tensor<4xf32>) -> tensor<2x8x2xf32> {
  %0 = rlx.fft_butterfly_stage %s, %g, %r, %wr, %wi stage = 1 n_fft = 8 : tensor<2x8x2xf32>, tensor<4xi1>, tensor<4xf32>
  return %0 : tensor<2x8x2xf32>
}

// -----

// log_mel: the power of the 5 = 8 / 2 + 1 bins, a contraction with the
// filterbank, log10 of the floored energies, the max over the whole tensor
// and the clamp and affine map. The backward recomputes these, masks dy /
// (4 ln(10) mel) by both clamps, contracts with the transposed filterbank and
// writes 2 x dP in both planes of the bins, zero elsewhere.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[FB:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[FBT:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @log_mel
// CHECK-SAME: (%[[S:.*]]: tensor<10x16xf32>, %[[F:.*]]: tensor<4x5xf32>, %[[DY:.*]]: tensor<10x4xf32>)
// CHECK: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<10x5xf32>)
// CHECK: tensor.extract %[[S]]
// CHECK: tensor.extract %[[S]]
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[MEL:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[FB]], #[[Y]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[P]], %[[F]] :
// CHECK: %[[LOG:.*]] = linalg.generic {{.*}} ins(%[[MEL]] :
// CHECK: arith.maximumf
// CHECK: math.log10
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[LOG]] : tensor<10x4xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[LM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[SCALAR]], #[[ID]]], {{.*}} ins(%[[LOG]], %[[MAX]] :
// CHECK: arith.subf
// CHECK: arith.maximumf
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: math.log10
// CHECK: %[[MAX2:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]}
// CHECK: %[[DMEL:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[MAX2]], %[[DY]] :
// CHECK: arith.cmpf oge
// CHECK: arith.cmpf oge
// CHECK: arith.select
// CHECK: %[[DP:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[FBT]], #[[Y]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[DMEL]], %[[F]] : tensor<10x4xf32>, tensor<4x5xf32>) outs(%{{.*}} : tensor<10x5xf32>)
// CHECK: %[[DS:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<10x16xf32>) outs(%{{.*}} : tensor<10x16xf32>)
// CHECK: arith.remui %{{.*}}, %c8
// CHECK: arith.cmpi ult, %{{.*}}, %c5
// CHECK: tensor.extract %[[DP]]
// CHECK: return %[[LM]], %[[DS]]
func.func @log_mel(%s: tensor<10x16xf32>, %f: tensor<4x5xf32>, %dy: tensor<10x4xf32>) -> (tensor<10x4xf32>, tensor<10x16xf32>) {
  %0 = rlx.log_mel %s, %f : tensor<10x16xf32>, tensor<4x5xf32>
  %1 = rlx.log_mel_backward %s, %f, %dy : tensor<10x16xf32>, tensor<4x5xf32>, tensor<10x4xf32>
  return %0, %1 : tensor<10x4xf32>, tensor<10x16xf32>
}

// -----

// A length above 16 that is not a power of two (N = 17) takes Bluestein's
// FFT: the chirp exp(-i pi k^2 / 17) is read from a table of length 2 N = 34
// (a generic over m in f64, no constant per element) at k^2 mod 34; x times
// the chirp, zero-padded to M = 64 (the power of two >= 2 N - 1); the filter
// (the conjugate chirp at j < 17 and at 64 - j for j > 47); radix-2 FFTs of
// length 64 of both (6 stages each), their product (the filter broadcast
// over the batch), the inverse radix-2 FFT, and the chirp times the first 17
// entries scaled by 1/64.
// CHECK-LABEL: func.func @fft_bluestein
// CHECK-NOT: dense<[
// CHECK: %[[CHIRP:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}}, %{{.*}} : tensor<34xf32>, tensor<34xf32>)
// CHECK: math.cos %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f64
// CHECK: %[[A:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<2x64xf32>, tensor<2x64xf32>)
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: arith.cmpi ult, %[[J]], %c17
// CHECK: arith.muli
// CHECK: arith.remui %{{.*}}, %c34
// CHECK: tensor.extract %[[CHIRP]]#0
// CHECK: %[[H:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}}, %{{.*}} : tensor<64xf32>, tensor<64xf32>)
// CHECK: arith.cmpi ugt, %{{.*}}, %c47
// CHECK: arith.negf
// CHECK-COUNT-6: outs(%{{.*}}, %{{.*}} : tensor<2x64xf32>, tensor<2x64xf32>)
// CHECK-COUNT-7: outs(%{{.*}}, %{{.*}} : tensor<64xf32>, tensor<64xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x64xf32>, tensor<2x64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x64xf32>, tensor<2x64xf32>)
// CHECK-COUNT-7: outs(%{{.*}}, %{{.*}} : tensor<2x64xf32>, tensor<2x64xf32>)
// CHECK: %[[X:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<2x17xf32>, tensor<2x17xf32>)
// CHECK: arith.remui %{{.*}}, %c34
// CHECK: arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK: complex.create
func.func @fft_bluestein(%x: tensor<2x17xcomplex<f32>>) -> tensor<2x17xcomplex<f32>> {
  %0 = rlx.fft %x : tensor<2x17xcomplex<f32>>
  return %0 : tensor<2x17xcomplex<f32>>
}

// -----

// A dynamic transform length: checked at run time as the verifier checks a
// static one, then radix-2 when N is a power of two at run time (the
// bit-reversal gather and an scf.for over the log2(N) = cttz(N) stages,
// each with its twiddle table of `stride` entries), Bluestein's FFT
// otherwise (M = 2^(64 - clz(2N - 2)), three radix-2 FFTs of length M);
// the forward-normed inverse scales by 1/N computed from N.
// CHECK-LABEL: func.func @fft_dynamic_length
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>)
// CHECK: %[[LAST:.*]] = tensor.dim %[[X]], %c1
// CHECK: cf.assert %{{.*}}, "shape mismatch in 'rlx.fft' at {{.*}}fft.mlir:{{[0-9]+}}:8: the real-block layout needs an even last axis of length 2N >= 2"
// CHECK: %[[N:.*]] = arith.divui %[[LAST]], %c2
// CHECK: %[[POW2:.*]] = arith.cmpi eq
// CHECK: %[[Y:.*]]:2 = scf.if %[[POW2]] -> (tensor<2x?xf32>, tensor<2x?xf32>) {
// CHECK: math.cttz
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<2x?xf32>, tensor<2x?xf32>)
// CHECK: arith.shli
// CHECK: outs(%{{.*}}, %{{.*}} : tensor<?xf32>, tensor<?xf32>)
// CHECK: } else {
// CHECK: math.ctlz
// CHECK-COUNT-3: scf.for
// CHECK: }
// CHECK: arith.uitofp %{{.*}} : i64 to f64
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [2, %{{.*}}] [1, 1] : tensor<2x?xf32> into tensor<2x?xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, %{{.*}}] [2, %{{.*}}] [1, 1] : tensor<2x?xf32> into tensor<2x?xf32>
func.func @fft_dynamic_length(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = rlx.fft inverse %x {norm = #rlx.fft_norm<forward>} : tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// log_mel with a dynamic spectrum axis: n_fft from it, and the
// filterbank's bins checked against n_fft / 2 + 1 at run time.
// CHECK-LABEL: func.func @log_mel_dynamic_spectrum
// CHECK: cf.assert %{{.*}}, "shape mismatch in 'rlx.log_mel' at {{.*}}: the real-block layout needs an even last axis of length 2N >= 2"
// CHECK: cf.assert %{{.*}}, "shape mismatch in 'rlx.log_mel' at {{.*}}: the filterbank's frequency bins (dim 1) must be n_fft / 2 + 1 for the spectrum's n_fft"
// CHECK: math.log10
func.func @log_mel_dynamic_spectrum(%s: tensor<3x?xf32>, %f: tensor<4x?xf32>) -> tensor<3x4xf32> {
  %0 = rlx.log_mel %s, %f : tensor<3x?xf32>, tensor<4x?xf32>
  return %0 : tensor<3x4xf32>
}
