;; The sampling kernel of runtime/kernel/sampling-kernel.ts: sampleClipAt and sampleClipBlendInto
;; (runtime/core/sampling.ts) for a pose and a clip copied into this module's memory, with the same IEEE
;; operations in the same order, so its poses are bit-identical to the JavaScript path's. The
;; quaternion and translation arithmetic runs two lanes at a time (f64x2); sums across lanes (a dot
;; product, a squared length) are taken lane by lane in the scalar order ((x + y) + z) + w. No fused
;; multiply-add: every product is rounded as JavaScript rounds it. quatNormalize is written out at
;; each use rather than called: no helper functions on hot paths (see CONTRIBUTING.md, "The
;; WebAssembly kernel and its JavaScript twin").
;;
;; Hand-written in the text format; scripts/build-wasm.mjs assembles it (the `wabt` package) into
;; runtime/kernel/wasm/sampling-bytes.ts, and a test checks the two agree. All addresses are byte offsets
;; into the memory; f64 arrays are 8-byte aligned.
(module
  ;; Math.sin, for the rare span of keys more than 0.35 rad apart (see SLERP_SERIES_MAX_ANGLE).
  (import "m" "sin" (func $sin (param f64) (result f64)))
  ;; Math.sin and Math.cos of an inertialization's rotation offset beyond a quarter turn (rare).
  (import "m" "cos" (func $cos (param f64) (result f64)))
  (import "m" "memory" (memory 1))

  ;; The skeleton's reference pose (translations, rotations, scales) and 64 bytes of scratch: 16
  ;; for sample's (1 - alpha, alpha), 16 unused, then sample's numbers.
  (global $refT (mut i32) (i32.const 0))
  (global $refR (mut i32) (i32.const 0))
  (global $refS (mut i32) (i32.const 0))
  (global $scratch (mut i32) (i32.const 0))
  ;; The skeleton's parent of each bone (i32, -1 for a root), parents before children.
  (global $parents (mut i32) (i32.const 0))
  ;; This thread's per-bone weights (f64, one per bone), written by JavaScript before `layer`.
  (global $boneWeights (mut i32) (i32.const 0))

  ;; Constants the frame loops use, mutable globals read into locals once per call rather than
  ;; consts in the loops (see CONTRIBUTING.md, "The WebAssembly kernel and its JavaScript twin").
  (global $sinC3 (mut v128) (v128.const f64x2 -0.16666666666666666 -0.16666666666666666))
  (global $sinC5 (mut v128) (v128.const f64x2 0.008333333333333333 0.008333333333333333))
  (global $sinC7 (mut v128) (v128.const f64x2 -0.0001984126984126984 -0.0001984126984126984))
  (global $sinC9 (mut v128) (v128.const f64x2 0.0000027557319223985893 0.0000027557319223985893))
  (global $absFirst (mut v128) (v128.const i64x2 0x7fffffffffffffff -1))
  (global $ones (mut v128) (v128.const f64x2 1 1))
  (global $epsilons (mut v128) (v128.const f64x2 1e-12 1e-12))
  (global $one (mut f64) (f64.const 1))
  (global $epsilon (mut f64) (f64.const 1e-12))
  (global $seriesMaxAngle (mut f64) (f64.const 0.35))
  ;; sampleSingle's constants: sin's series to x^13 in single precision, ones, 1e-12, zeros.
  (global $sinF3 (mut v128) (v128.const f32x4 -0.16666666666666666 -0.16666666666666666 -0.16666666666666666 -0.16666666666666666))
  (global $sinF5 (mut v128) (v128.const f32x4 0.008333333333333333 0.008333333333333333 0.008333333333333333 0.008333333333333333))
  (global $sinF7 (mut v128) (v128.const f32x4 -0.0001984126984126984 -0.0001984126984126984 -0.0001984126984126984 -0.0001984126984126984))
  (global $sinF9 (mut v128) (v128.const f32x4 0.0000027557319223985893 0.0000027557319223985893 0.0000027557319223985893 0.0000027557319223985893))
  (global $sinF11 (mut v128) (v128.const f32x4 -2.505210838544172e-8 -2.505210838544172e-8 -2.505210838544172e-8 -2.505210838544172e-8))
  (global $sinF13 (mut v128) (v128.const f32x4 1.6059043836821613e-10 1.6059043836821613e-10 1.6059043836821613e-10 1.6059043836821613e-10))
  (global $onesF (mut v128) (v128.const f32x4 1 1 1 1))
  (global $epsilonsF (mut v128) (v128.const f32x4 1e-12 1e-12 1e-12 1e-12))

  (func (export "setup") (param $refT i32) (param $refR i32) (param $refS i32) (param $scratch i32) (param $parents i32) (param $boneWeights i32)
    (global.set $boneWeights (local.get $boneWeights))
    (global.set $parents (local.get $parents))
    (global.set $refT (local.get $refT))
    (global.set $refR (local.get $refR))
    (global.set $refS (local.get $refS))
    (global.set $scratch (local.get $scratch)))

  ;; Samples a clip between keys base0 / trackCount and base1 / trackCount at `alpha` into the pose
  ;; at ot/or/os (n bones), or blends the sample into it (blend = 1: out = out * wa + sample * w,
  ;; alpha, wa and w read from scratch + 32, 40 and 48)
  ;; the rotation then normalised), as sampleInto does. `clip` points at seven i32s: the binding's
  ;; translation, rotation and scale track per bone (-1: reference pose), the clip's translation,
  ;; rotation and scale keys, and its rotation spans (Clip.rotationSpans). Only for a slerp clip
  ;; sampled on a key (alpha = 0) or between consecutive keys (the spans' path); renorm = 1 when the
  ;; clip's rotation keys are not unit (Clip.unitRotationKeys is false). scripts/build-wasm.mjs
  ;; assembles this function four times, `sample` with every (local.get $blend) as 0 and
  ;; `sampleBlend` with it as 1, and each again as `...Between` with the test of alpha = 0 as false,
  ;; so that no loop tests a flag at each bone.
  (func (export "sample")
    (param $ot i32) (param $or i32) (param $os i32) (param $n i32) (param $clip i32)
    (param $base0 i32) (param $base1 i32) (param $blend i32) (param $renorm i32)
    (local $alpha f64) (local $wa f64) (local $w f64)
    (local $tt i32) (local $rt i32) (local $st i32) (local $ct i32) (local $cr i32) (local $cs i32) (local $sp i32)
    (local $bone i32) (local $tr i32) (local $a i32) (local $b i32) (local $o i32) (local $p i32)
    (local $z f64) (local $angle f64) (local $len2 f64)
    (local $xy v128) (local $valpha v128) (local $vwa v128) (local $vw v128) (local $v v128)
    (local $x v128) (local $y v128) (local $s v128) (local $s0 v128) (local $s1 v128)
    (local $qlo v128) (local $qhi v128) (local $blo v128) (local $bhi v128) (local $lo2 v128) (local $hi2 v128) (local $inv v128) (local $kk v128) (local $lerp v128)
    (local $c3 v128) (local $c5 v128) (local $c7 v128) (local $c9 v128) (local $absFirst v128)
    (local $fOne f64) (local $fEpsilon f64) (local $fSeriesMax f64)
    (local.set $fOne (global.get $one))
    (local.set $fEpsilon (global.get $epsilon))
    (local.set $fSeriesMax (global.get $seriesMaxAngle))
    ;; The numbers come through memory (scratch + 32: alpha, wa, w), not as f64 arguments (see
    ;; CONTRIBUTING.md, "Numbers in the frame loop").
    ;; The clip's descriptor, read once rather than per bone.
    (local.set $tt (i32.load (local.get $clip)))
    (local.set $rt (i32.load offset=4 (local.get $clip)))
    (local.set $st (i32.load offset=8 (local.get $clip)))
    (local.set $ct (i32.load offset=12 (local.get $clip)))
    (local.set $cr (i32.load offset=16 (local.get $clip)))
    (local.set $cs (i32.load offset=20 (local.get $clip)))
    (local.set $sp (i32.load offset=24 (local.get $clip)))
    (local.set $alpha (f64.load offset=32 (global.get $scratch)))
    (local.set $wa (f64.load offset=40 (global.get $scratch)))
    (local.set $w (f64.load offset=48 (global.get $scratch)))
    (local.set $valpha (f64x2.splat (local.get $alpha)))
    ;; (1 - alpha, alpha) goes through memory, not a local, which the loop would recompute at each
    ;; use (see CONTRIBUTING.md, "The WebAssembly kernel and its JavaScript twin").
    (v128.store (global.get $scratch) (f64x2.replace_lane 1 (f64x2.splat (f64.sub (f64.const 1) (local.get $alpha))) (local.get $alpha)))
    (local.set $lerp (v128.load (global.get $scratch)))
    (local.set $vwa (f64x2.splat (local.get $wa)))
    (local.set $vw (f64x2.splat (local.get $w)))
    (local.set $c3 (global.get $sinC3))
    (local.set $c5 (global.get $sinC5))
    (local.set $c7 (global.get $sinC7))
    (local.set $c9 (global.get $sinC9))
    (local.set $absFirst (global.get $absFirst))
    (block $done (loop $bones
      (br_if $done (i32.ge_u (local.get $bone) (local.get $n)))

      ;; Translation: a lerp of the two keys (x and y in a lane pair, z alone), or the reference.
      (local.set $tr (i32.load (i32.add (local.get $tt) (i32.shl (local.get $bone) (i32.const 2)))))
      (if (i32.ge_s (local.get $tr) (i32.const 0))
        (then
          (local.set $a (i32.add (local.get $ct) (i32.mul (i32.add (local.get $base0) (local.get $tr)) (i32.const 24))))
          (local.set $b (i32.add (local.get $ct) (i32.mul (i32.add (local.get $base1) (local.get $tr)) (i32.const 24))))
          (local.set $xy (v128.load (local.get $a)))
          (local.set $xy (f64x2.add (local.get $xy)
            (f64x2.mul (f64x2.sub (v128.load (local.get $b)) (local.get $xy)) (local.get $valpha))))
          (local.set $z (f64.load offset=16 (local.get $a)))
          (local.set $z (f64.add (local.get $z)
            (f64.mul (f64.sub (f64.load offset=16 (local.get $b)) (local.get $z)) (local.get $alpha)))))
        (else
          (local.set $a (i32.add (global.get $refT) (i32.mul (local.get $bone) (i32.const 24))))
          (local.set $xy (v128.load (local.get $a)))
          (local.set $z (f64.load offset=16 (local.get $a)))))
      (local.set $o (i32.add (local.get $ot) (i32.mul (local.get $bone) (i32.const 24))))
      (if (local.get $blend)
        (then
          (v128.store (local.get $o) (f64x2.add (f64x2.mul (v128.load (local.get $o)) (local.get $vwa)) (f64x2.mul (local.get $xy) (local.get $vw))))
          (f64.store offset=16 (local.get $o)
            (f64.add (f64.mul (f64.load offset=16 (local.get $o)) (local.get $wa)) (f64.mul (local.get $z) (local.get $w)))))
        (else
          (v128.store (local.get $o) (local.get $xy))
          (f64.store offset=16 (local.get $o) (local.get $z))))

      ;; Rotation into qlo (x, y) and qhi (z, w).
      (local.set $tr (i32.load (i32.add (local.get $rt) (i32.shl (local.get $bone) (i32.const 2)))))
      (if (i32.ge_s (local.get $tr) (i32.const 0))
        (then
          (local.set $a (i32.add (local.get $cr) (i32.shl (i32.add (local.get $base0) (local.get $tr)) (i32.const 5))))
          (local.set $b (i32.add (local.get $cr) (i32.shl (i32.add (local.get $base1) (local.get $tr)) (i32.const 5))))
          (if (f64.eq (local.get $alpha) (f64.const 0))
            (then
              (local.set $qlo (v128.load (local.get $a)))
              (local.set $qhi (v128.load offset=16 (local.get $a))))
            (else
              ;; The span's angle and signed 1 / sin(angle) (Clip.rotationSpans).
              (local.set $p (i32.add (local.get $sp) (i32.shl (i32.add (local.get $base0) (local.get $tr)) (i32.const 4))))
              (local.set $x (v128.load (local.get $p)))
              (local.set $angle (f64x2.extract_lane 0 (local.get $x)))
              ;; (|k|, k), k the signed 1 / sin(angle) (or the sign alone for the linear fallback,
              ;; whose weights are not scaled): s * (|k|, k) scales both weights by 1 / sin(angle)
              ;; and negates the second where it is taken in the first key's hemisphere, exactly as
              ;; JavaScript's s1 * |k| then -s1 (a product's rounding is symmetric in sign).
              (local.set $kk (v128.and (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $x) (local.get $x))
                (local.get $absFirst)))
              ;; Lanes (s0, s1): the weights of the two keys, (1 - alpha, alpha) for the linear fallback.
              (local.set $s (local.get $lerp))
              (if (f64.ne (local.get $angle) (f64.const 0))
                (then
                  ;; x = ((1 - alpha) * angle, alpha * angle)
                  (local.set $x (f64x2.mul (local.get $lerp) (f64x2.splat (local.get $angle))))
                  (if (f64.le (local.get $angle) (local.get $fSeriesMax))
                    (then
                      ;; sin x by its Taylor series to x^9, both lanes at once (SLERP_SERIES_MAX_ANGLE):
                      ;; x + x * y * (-1/6 + y * (1/120 + y * (-1/5040 + y * 1/362880))), y = x * x.
                      (local.set $y (f64x2.mul (local.get $x) (local.get $x)))
                      (local.set $s (f64x2.add (local.get $x) (f64x2.mul (f64x2.mul (local.get $x) (local.get $y))
                        (f64x2.add (local.get $c3) (f64x2.mul (local.get $y)
                          (f64x2.add (local.get $c5) (f64x2.mul (local.get $y)
                            (f64x2.add (local.get $c7)
                              (f64x2.mul (local.get $y) (local.get $c9)))))))))))
                    (else
                      (local.set $s (f64x2.replace_lane 1
                        (f64x2.splat (call $sin (f64x2.extract_lane 0 (local.get $x))))
                        (call $sin (f64x2.extract_lane 1 (local.get $x)))))))))
              (local.set $s (f64x2.mul (local.get $s) (local.get $kk)))
              (local.set $s0 (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $s) (local.get $s)))
              (local.set $s1 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $s) (local.get $s)))
              (local.set $qlo (f64x2.add (f64x2.mul (v128.load (local.get $a)) (local.get $s0))
                (f64x2.mul (v128.load (local.get $b)) (local.get $s1))))
              (local.set $qhi (f64x2.add (f64x2.mul (v128.load offset=16 (local.get $a)) (local.get $s0))
                (f64x2.mul (v128.load offset=16 (local.get $b)) (local.get $s1))))
              ;; The linear fallback, and keys that are not unit, are renormalised (quatNormalize).
              (if (i32.or (f64.eq (local.get $angle) (f64.const 0)) (local.get $renorm))
                (then
                  (local.set $lo2 (f64x2.mul (local.get $qlo) (local.get $qlo)))
                  (local.set $hi2 (f64x2.mul (local.get $qhi) (local.get $qhi)))
                  (local.set $len2 (f64.add (f64.add (f64.add (f64x2.extract_lane 0 (local.get $lo2)) (f64x2.extract_lane 1 (local.get $lo2)))
                    (f64x2.extract_lane 0 (local.get $hi2))) (f64x2.extract_lane 1 (local.get $hi2))))
                  (if (i32.or (i32.eqz (f64.gt (local.get $len2) (local.get $fEpsilon)))
                        (f64.ne (f64.sub (local.get $len2) (local.get $len2)) (f64.const 0)))
                    (then
                      (local.set $qlo (v128.const f64x2 0 0))
                      (local.set $qhi (v128.const f64x2 0 1)))
                    (else
                      (local.set $inv (f64x2.splat (f64.div (local.get $fOne) (f64.sqrt (local.get $len2)))))
                      (local.set $qlo (f64x2.mul (local.get $qlo) (local.get $inv)))
                      (local.set $qhi (f64x2.mul (local.get $qhi) (local.get $inv))))))))))
        (else
          (local.set $a (i32.add (global.get $refR) (i32.shl (local.get $bone) (i32.const 5))))
          (local.set $qlo (v128.load (local.get $a)))
          (local.set $qhi (v128.load offset=16 (local.get $a)))))
      (local.set $o (i32.add (local.get $or) (i32.shl (local.get $bone) (i32.const 5))))
      (if (local.get $blend)
        (then
          ;; poseBlendTwo's arithmetic with the sample as its second pose: out * wa + sample * +-w,
          ;; the sign taking the sample into out's hemisphere, then normalised.
          (local.set $blo (local.get $qlo))
          (local.set $bhi (local.get $qhi))
          (local.set $qlo (f64x2.mul (v128.load (local.get $o)) (local.get $vwa)))
          (local.set $qhi (f64x2.mul (v128.load offset=16 (local.get $o)) (local.get $vwa)))
          (local.set $lo2 (f64x2.mul (local.get $qlo) (local.get $blo)))
          (local.set $hi2 (f64x2.mul (local.get $qhi) (local.get $bhi)))
          (local.set $v (f64x2.splat (select (f64.neg (local.get $w)) (local.get $w)
            (f64.lt (f64.add (f64.add (f64.add (f64x2.extract_lane 0 (local.get $lo2)) (f64x2.extract_lane 1 (local.get $lo2)))
              (f64x2.extract_lane 0 (local.get $hi2))) (f64x2.extract_lane 1 (local.get $hi2))) (f64.const 0)))))
          (local.set $qlo (f64x2.add (local.get $qlo) (f64x2.mul (local.get $blo) (local.get $v))))
          (local.set $qhi (f64x2.add (local.get $qhi) (f64x2.mul (local.get $bhi) (local.get $v))))
          (local.set $lo2 (f64x2.mul (local.get $qlo) (local.get $qlo)))
          (local.set $hi2 (f64x2.mul (local.get $qhi) (local.get $qhi)))
          (local.set $len2 (f64.add (f64.add (f64.add (f64x2.extract_lane 0 (local.get $lo2)) (f64x2.extract_lane 1 (local.get $lo2)))
            (f64x2.extract_lane 0 (local.get $hi2))) (f64x2.extract_lane 1 (local.get $hi2))))
          (if (i32.or (i32.eqz (f64.gt (local.get $len2) (local.get $fEpsilon)))
                (f64.ne (f64.sub (local.get $len2) (local.get $len2)) (f64.const 0)))
            (then
              (local.set $qlo (v128.const f64x2 0 0))
              (local.set $qhi (v128.const f64x2 0 1)))
            (else
              (local.set $inv (f64x2.splat (f64.div (local.get $fOne) (f64.sqrt (local.get $len2)))))
              (local.set $qlo (f64x2.mul (local.get $qlo) (local.get $inv)))
              (local.set $qhi (f64x2.mul (local.get $qhi) (local.get $inv)))))))
      (v128.store (local.get $o) (local.get $qlo))
      (v128.store offset=16 (local.get $o) (local.get $qhi))

      ;; Scale, as the translation.
      (local.set $tr (i32.load (i32.add (local.get $st) (i32.shl (local.get $bone) (i32.const 2)))))
      (if (i32.ge_s (local.get $tr) (i32.const 0))
        (then
          (local.set $a (i32.add (local.get $cs) (i32.mul (i32.add (local.get $base0) (local.get $tr)) (i32.const 24))))
          (local.set $b (i32.add (local.get $cs) (i32.mul (i32.add (local.get $base1) (local.get $tr)) (i32.const 24))))
          (local.set $xy (v128.load (local.get $a)))
          (local.set $xy (f64x2.add (local.get $xy)
            (f64x2.mul (f64x2.sub (v128.load (local.get $b)) (local.get $xy)) (local.get $valpha))))
          (local.set $z (f64.load offset=16 (local.get $a)))
          (local.set $z (f64.add (local.get $z)
            (f64.mul (f64.sub (f64.load offset=16 (local.get $b)) (local.get $z)) (local.get $alpha)))))
        (else
          (local.set $a (i32.add (global.get $refS) (i32.mul (local.get $bone) (i32.const 24))))
          (local.set $xy (v128.load (local.get $a)))
          (local.set $z (f64.load offset=16 (local.get $a)))))
      (local.set $o (i32.add (local.get $os) (i32.mul (local.get $bone) (i32.const 24))))
      (if (local.get $blend)
        (then
          (v128.store (local.get $o) (f64x2.add (f64x2.mul (v128.load (local.get $o)) (local.get $vwa)) (f64x2.mul (local.get $xy) (local.get $vw))))
          (f64.store offset=16 (local.get $o)
            (f64.add (f64.mul (f64.load offset=16 (local.get $o)) (local.get $wa)) (f64.mul (local.get $z) (local.get $w)))))
        (else
          (v128.store (local.get $o) (local.get $xy))
          (f64.store offset=16 (local.get $o) (local.get $z))))

      (local.set $bone (i32.add (local.get $bone) (i32.const 1)))
      (br $bones))))

  ;; sample in single precision (a kernel made with precision 'single'), four bones to a vector: the
  ;; keys of a clip copied as float32 in structure of arrays (per key, per group of four bones, ten
  ;; vectors: translation x, y, z, rotation x, y, z, w, scale x, y, z; a bone without a track holds its
  ;; reference transform; see singleCopies in sampling-kernel.ts), key a at $ka and key b at $kb, and
  ;; the spans of key a at $sp (per group an angle vector and a signed 1 / sin(angle) vector; angle 0
  ;; and k = +-1 for the linear fallback and for the reference). The same steps as `sample` (lerp of
  ;; translations and scales, slerp by the spans with the sines from their series, here to x^13 for
  ;; every angle up to pi/2, the linear fallback and keys that are not unit renormalised, and with
  ;; blend = 1 poseBlendTwo's arithmetic into the pose), each rounded to float32, then written to the
  ;; pose's double-precision arrays as it is read from them: four bones transposed between the
  ;; pose's layout and the vectors. alpha, wa and w are read from scratch + 32, 40 and 48 as
  ;; `sample` reads them. A last group of fewer than four bones goes through scratch + 64 (four
  ;; bones' translations, rotations and scales), so that nothing past the pose is read or written.
  ;; scripts/build-wasm.mjs assembles it as sampleSingle (blend 0) and sampleSingleBlend (blend 1).
  (func (export "sampleSingle")
    (param $ot i32) (param $or i32) (param $os i32) (param $n i32) (param $ka i32) (param $kb i32) (param $sp i32) (param $blend i32) (param $renorm i32)
    (local $g i32) (local $groups i32) (local $lanes i32) (local $a i32) (local $b i32) (local $p i32) (local $to i32) (local $ro i32) (local $so i32)
    (local $valpha v128) (local $vbeta v128) (local $vwa v128) (local $vw v128) (local $vnw v128) (local $renormAll v128)
    (local $c3 v128) (local $c5 v128) (local $c7 v128) (local $c9 v128) (local $c11 v128) (local $c13 v128) (local $one v128) (local $epsilon v128)
    (local $tx v128) (local $ty v128) (local $tz v128) (local $sx v128) (local $sy v128) (local $sz v128)
    (local $ang v128) (local $k v128) (local $x0 v128) (local $x1 v128) (local $y0 v128) (local $y1 v128) (local $s0 v128) (local $s1 v128) (local $lin v128)
    (local $qx v128) (local $qy v128) (local $qz v128) (local $qw v128) (local $ax v128) (local $ay v128) (local $az v128) (local $aw v128)
    (local $len2 v128) (local $inv v128) (local $ok v128) (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
    (local.set $c3 (global.get $sinF3))
    (local.set $c5 (global.get $sinF5))
    (local.set $c7 (global.get $sinF7))
    (local.set $c9 (global.get $sinF9))
    (local.set $c11 (global.get $sinF11))
    (local.set $c13 (global.get $sinF13))
    (local.set $one (global.get $onesF))
    (local.set $epsilon (global.get $epsilonsF))
    (local.set $valpha (f32x4.splat (f32.demote_f64 (f64.load offset=32 (global.get $scratch)))))
    ;; 1 - alpha through memory, as `sample` keeps its lerp weights (see CONTRIBUTING.md, "The
    ;; WebAssembly kernel and its JavaScript twin").
    (v128.store (global.get $scratch) (f32x4.sub (local.get $one) (local.get $valpha)))
    (local.set $vbeta (v128.load (global.get $scratch)))
    (local.set $vwa (f32x4.splat (f32.demote_f64 (f64.load offset=40 (global.get $scratch)))))
    (local.set $vw (f32x4.splat (f32.demote_f64 (f64.load offset=48 (global.get $scratch)))))
    (local.set $vnw (f32x4.neg (local.get $vw)))
    (local.set $renormAll (i32x4.splat (i32.sub (i32.const 0) (local.get $renorm))))
    (local.set $groups (i32.shr_u (i32.add (local.get $n) (i32.const 3)) (i32.const 2)))
    (block $done (loop $loop
      (br_if $done (i32.ge_u (local.get $g) (local.get $groups)))
      (local.set $a (i32.add (local.get $ka) (i32.mul (local.get $g) (i32.const 160))))
      (local.set $b (i32.add (local.get $kb) (i32.mul (local.get $g) (i32.const 160))))
      (local.set $p (i32.add (local.get $sp) (i32.shl (local.get $g) (i32.const 5))))
      (local.set $to (i32.add (local.get $ot) (i32.mul (local.get $g) (i32.const 96))))
      (local.set $ro (i32.add (local.get $or) (i32.shl (local.get $g) (i32.const 7))))
      (local.set $so (i32.add (local.get $os) (i32.mul (local.get $g) (i32.const 96))))
      (local.set $lanes (i32.sub (local.get $n) (i32.shl (local.get $g) (i32.const 2))))
      (if (i32.lt_u (local.get $lanes) (i32.const 4))
        (then
          ;; The last, partial group: its bones in scratch, the lanes past the pose left as they are there.
          (if (local.get $blend)
            (then
              (memory.copy (i32.add (global.get $scratch) (i32.const 64)) (local.get $to) (i32.mul (local.get $lanes) (i32.const 24)))
              (memory.copy (i32.add (global.get $scratch) (i32.const 160)) (local.get $ro) (i32.shl (local.get $lanes) (i32.const 5)))
              (memory.copy (i32.add (global.get $scratch) (i32.const 288)) (local.get $so) (i32.mul (local.get $lanes) (i32.const 24)))))
          (local.set $to (i32.add (global.get $scratch) (i32.const 64)))
          (local.set $ro (i32.add (global.get $scratch) (i32.const 160)))
          (local.set $so (i32.add (global.get $scratch) (i32.const 288)))))

      ;; Translations and scales: a + (b - a) * alpha.
      (local.set $tx (v128.load (local.get $a)))
      (local.set $tx (f32x4.add (local.get $tx) (f32x4.mul (f32x4.sub (v128.load (local.get $b)) (local.get $tx)) (local.get $valpha))))
      (local.set $ty (v128.load offset=16 (local.get $a)))
      (local.set $ty (f32x4.add (local.get $ty) (f32x4.mul (f32x4.sub (v128.load offset=16 (local.get $b)) (local.get $ty)) (local.get $valpha))))
      (local.set $tz (v128.load offset=32 (local.get $a)))
      (local.set $tz (f32x4.add (local.get $tz) (f32x4.mul (f32x4.sub (v128.load offset=32 (local.get $b)) (local.get $tz)) (local.get $valpha))))
      (local.set $sx (v128.load offset=112 (local.get $a)))
      (local.set $sx (f32x4.add (local.get $sx) (f32x4.mul (f32x4.sub (v128.load offset=112 (local.get $b)) (local.get $sx)) (local.get $valpha))))
      (local.set $sy (v128.load offset=128 (local.get $a)))
      (local.set $sy (f32x4.add (local.get $sy) (f32x4.mul (f32x4.sub (v128.load offset=128 (local.get $b)) (local.get $sy)) (local.get $valpha))))
      (local.set $sz (v128.load offset=144 (local.get $a)))
      (local.set $sz (f32x4.add (local.get $sz) (f32x4.mul (f32x4.sub (v128.load offset=144 (local.get $b)) (local.get $sz)) (local.get $valpha))))

      ;; Rotations: the keys' weights s0 = sin((1 - alpha) angle) k and s1 = sin(alpha angle) k
      ;; (|k| for s0), or (1 - alpha, +-alpha) where the angle is 0.
      (local.set $ang (v128.load (local.get $p)))
      (local.set $k (v128.load offset=16 (local.get $p)))
      (local.set $x0 (f32x4.mul (local.get $vbeta) (local.get $ang)))
      (local.set $x1 (f32x4.mul (local.get $valpha) (local.get $ang)))
      (local.set $y0 (f32x4.mul (local.get $x0) (local.get $x0)))
      (local.set $y1 (f32x4.mul (local.get $x1) (local.get $x1)))
      (local.set $s0 (f32x4.add (local.get $x0) (f32x4.mul (f32x4.mul (local.get $x0) (local.get $y0))
        (f32x4.add (local.get $c3) (f32x4.mul (local.get $y0) (f32x4.add (local.get $c5) (f32x4.mul (local.get $y0)
          (f32x4.add (local.get $c7) (f32x4.mul (local.get $y0) (f32x4.add (local.get $c9) (f32x4.mul (local.get $y0)
            (f32x4.add (local.get $c11) (f32x4.mul (local.get $y0) (local.get $c13))))))))))))))
      (local.set $s1 (f32x4.add (local.get $x1) (f32x4.mul (f32x4.mul (local.get $x1) (local.get $y1))
        (f32x4.add (local.get $c3) (f32x4.mul (local.get $y1) (f32x4.add (local.get $c5) (f32x4.mul (local.get $y1)
          (f32x4.add (local.get $c7) (f32x4.mul (local.get $y1) (f32x4.add (local.get $c9) (f32x4.mul (local.get $y1)
            (f32x4.add (local.get $c11) (f32x4.mul (local.get $y1) (local.get $c13))))))))))))))
      (local.set $lin (f32x4.eq (local.get $ang) (v128.const f32x4 0 0 0 0)))
      (local.set $s0 (f32x4.mul (v128.bitselect (local.get $vbeta) (local.get $s0) (local.get $lin)) (f32x4.abs (local.get $k))))
      (local.set $s1 (f32x4.mul (v128.bitselect (local.get $valpha) (local.get $s1) (local.get $lin)) (local.get $k)))
      (local.set $qx (f32x4.add (f32x4.mul (v128.load offset=48 (local.get $a)) (local.get $s0)) (f32x4.mul (v128.load offset=48 (local.get $b)) (local.get $s1))))
      (local.set $qy (f32x4.add (f32x4.mul (v128.load offset=64 (local.get $a)) (local.get $s0)) (f32x4.mul (v128.load offset=64 (local.get $b)) (local.get $s1))))
      (local.set $qz (f32x4.add (f32x4.mul (v128.load offset=80 (local.get $a)) (local.get $s0)) (f32x4.mul (v128.load offset=80 (local.get $b)) (local.get $s1))))
      (local.set $qw (f32x4.add (f32x4.mul (v128.load offset=96 (local.get $a)) (local.get $s0)) (f32x4.mul (v128.load offset=96 (local.get $b)) (local.get $s1))))
      ;; The linear fallback's lanes, and every lane for keys that are not unit, renormalised
      ;; (quatNormalize: not above 1e-12, or not finite, gives the identity).
      (local.set $lin (v128.or (local.get $lin) (local.get $renormAll)))
      (if (v128.any_true (local.get $lin))
        (then
          (local.set $len2 (f32x4.add (f32x4.add (f32x4.add (f32x4.mul (local.get $qx) (local.get $qx)) (f32x4.mul (local.get $qy) (local.get $qy)))
            (f32x4.mul (local.get $qz) (local.get $qz))) (f32x4.mul (local.get $qw) (local.get $qw))))
          (local.set $ok (v128.and (f32x4.gt (local.get $len2) (local.get $epsilon))
            (f32x4.eq (f32x4.sub (local.get $len2) (local.get $len2)) (v128.const f32x4 0 0 0 0))))
          (local.set $inv (f32x4.div (local.get $one) (f32x4.sqrt (local.get $len2))))
          (local.set $ok (v128.or (local.get $ok) (v128.not (local.get $lin))))
          (local.set $inv (v128.bitselect (local.get $inv) (local.get $one) (local.get $lin)))
          (local.set $qx (v128.and (f32x4.mul (local.get $qx) (local.get $inv)) (local.get $ok)))
          (local.set $qy (v128.and (f32x4.mul (local.get $qy) (local.get $inv)) (local.get $ok)))
          (local.set $qz (v128.and (f32x4.mul (local.get $qz) (local.get $inv)) (local.get $ok)))
          (local.set $qw (v128.bitselect (f32x4.mul (local.get $qw) (local.get $inv)) (local.get $one) (local.get $ok)))))

      (if (local.get $blend)
        (then
          ;; The pose's four bones read as vectors: (x, y) pairs demoted and gathered, z (and w) likewise.
          (local.set $t0 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (v128.load (local.get $to))) (f32x4.demote_f64x2_zero (v128.load offset=24 (local.get $to)))))
          (local.set $t1 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (v128.load offset=48 (local.get $to))) (f32x4.demote_f64x2_zero (v128.load offset=72 (local.get $to)))))
          (local.set $t2 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (v128.load64_lane offset=40 1 (local.get $to) (v128.load64_zero offset=16 (local.get $to))))
            (f32x4.demote_f64x2_zero (v128.load64_lane offset=88 1 (local.get $to) (v128.load64_zero offset=64 (local.get $to))))))
          (local.set $tx (f32x4.add (f32x4.mul (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $t0) (local.get $t1)) (local.get $vwa))
            (f32x4.mul (local.get $tx) (local.get $vw))))
          (local.set $ty (f32x4.add (f32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $t0) (local.get $t1)) (local.get $vwa))
            (f32x4.mul (local.get $ty) (local.get $vw))))
          (local.set $tz (f32x4.add (f32x4.mul (local.get $t2) (local.get $vwa)) (f32x4.mul (local.get $tz) (local.get $vw))))
          (local.set $t0 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (v128.load (local.get $so))) (f32x4.demote_f64x2_zero (v128.load offset=24 (local.get $so)))))
          (local.set $t1 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (v128.load offset=48 (local.get $so))) (f32x4.demote_f64x2_zero (v128.load offset=72 (local.get $so)))))
          (local.set $t2 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (v128.load64_lane offset=40 1 (local.get $so) (v128.load64_zero offset=16 (local.get $so))))
            (f32x4.demote_f64x2_zero (v128.load64_lane offset=88 1 (local.get $so) (v128.load64_zero offset=64 (local.get $so))))))
          (local.set $sx (f32x4.add (f32x4.mul (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $t0) (local.get $t1)) (local.get $vwa))
            (f32x4.mul (local.get $sx) (local.get $vw))))
          (local.set $sy (f32x4.add (f32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $t0) (local.get $t1)) (local.get $vwa))
            (f32x4.mul (local.get $sy) (local.get $vw))))
          (local.set $sz (f32x4.add (f32x4.mul (local.get $t2) (local.get $vwa)) (f32x4.mul (local.get $sz) (local.get $vw))))
          ;; Rotations: a = out * wa; a + q * (+-w), the sign taking q into a's hemisphere, normalised.
          (local.set $t0 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (v128.load (local.get $ro))) (f32x4.demote_f64x2_zero (v128.load offset=32 (local.get $ro)))))
          (local.set $t1 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (v128.load offset=64 (local.get $ro))) (f32x4.demote_f64x2_zero (v128.load offset=96 (local.get $ro)))))
          (local.set $t2 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (v128.load offset=16 (local.get $ro))) (f32x4.demote_f64x2_zero (v128.load offset=48 (local.get $ro)))))
          (local.set $t3 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (v128.load offset=80 (local.get $ro))) (f32x4.demote_f64x2_zero (v128.load offset=112 (local.get $ro)))))
          (local.set $ax (f32x4.mul (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $t0) (local.get $t1)) (local.get $vwa)))
          (local.set $ay (f32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $t0) (local.get $t1)) (local.get $vwa)))
          (local.set $az (f32x4.mul (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $t2) (local.get $t3)) (local.get $vwa)))
          (local.set $aw (f32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $t2) (local.get $t3)) (local.get $vwa)))
          (local.set $s1 (v128.bitselect (local.get $vnw) (local.get $vw)
            (f32x4.lt (f32x4.add (f32x4.add (f32x4.add (f32x4.mul (local.get $ax) (local.get $qx)) (f32x4.mul (local.get $ay) (local.get $qy)))
              (f32x4.mul (local.get $az) (local.get $qz))) (f32x4.mul (local.get $aw) (local.get $qw))) (v128.const f32x4 0 0 0 0))))
          (local.set $qx (f32x4.add (local.get $ax) (f32x4.mul (local.get $qx) (local.get $s1))))
          (local.set $qy (f32x4.add (local.get $ay) (f32x4.mul (local.get $qy) (local.get $s1))))
          (local.set $qz (f32x4.add (local.get $az) (f32x4.mul (local.get $qz) (local.get $s1))))
          (local.set $qw (f32x4.add (local.get $aw) (f32x4.mul (local.get $qw) (local.get $s1))))
          (local.set $len2 (f32x4.add (f32x4.add (f32x4.add (f32x4.mul (local.get $qx) (local.get $qx)) (f32x4.mul (local.get $qy) (local.get $qy)))
            (f32x4.mul (local.get $qz) (local.get $qz))) (f32x4.mul (local.get $qw) (local.get $qw))))
          (local.set $ok (v128.and (f32x4.gt (local.get $len2) (local.get $epsilon))
            (f32x4.eq (f32x4.sub (local.get $len2) (local.get $len2)) (v128.const f32x4 0 0 0 0))))
          (local.set $inv (f32x4.div (local.get $one) (f32x4.sqrt (local.get $len2))))
          (local.set $qx (v128.and (f32x4.mul (local.get $qx) (local.get $inv)) (local.get $ok)))
          (local.set $qy (v128.and (f32x4.mul (local.get $qy) (local.get $inv)) (local.get $ok)))
          (local.set $qz (v128.and (f32x4.mul (local.get $qz) (local.get $inv)) (local.get $ok)))
          (local.set $qw (v128.bitselect (f32x4.mul (local.get $qw) (local.get $inv)) (local.get $one) (local.get $ok)))))

      ;; Written back bone by bone: (x, y) pairs interleaved and promoted, z (and w) likewise.
      (local.set $t0 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $tx) (local.get $ty)))
      (local.set $t1 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $tx) (local.get $ty)))
      (v128.store (local.get $to) (f64x2.promote_low_f32x4 (local.get $t0)))
      (v128.store offset=24 (local.get $to) (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $t0) (local.get $t0))))
      (v128.store offset=48 (local.get $to) (f64x2.promote_low_f32x4 (local.get $t1)))
      (v128.store offset=72 (local.get $to) (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $t1) (local.get $t1))))
      (local.set $t2 (f64x2.promote_low_f32x4 (local.get $tz)))
      (local.set $t3 (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $tz) (local.get $tz))))
      (v128.store64_lane offset=16 0 (local.get $to) (local.get $t2))
      (v128.store64_lane offset=40 1 (local.get $to) (local.get $t2))
      (v128.store64_lane offset=64 0 (local.get $to) (local.get $t3))
      (v128.store64_lane offset=88 1 (local.get $to) (local.get $t3))
      (local.set $t0 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $sx) (local.get $sy)))
      (local.set $t1 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $sx) (local.get $sy)))
      (v128.store (local.get $so) (f64x2.promote_low_f32x4 (local.get $t0)))
      (v128.store offset=24 (local.get $so) (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $t0) (local.get $t0))))
      (v128.store offset=48 (local.get $so) (f64x2.promote_low_f32x4 (local.get $t1)))
      (v128.store offset=72 (local.get $so) (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $t1) (local.get $t1))))
      (local.set $t2 (f64x2.promote_low_f32x4 (local.get $sz)))
      (local.set $t3 (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $sz) (local.get $sz))))
      (v128.store64_lane offset=16 0 (local.get $so) (local.get $t2))
      (v128.store64_lane offset=40 1 (local.get $so) (local.get $t2))
      (v128.store64_lane offset=64 0 (local.get $so) (local.get $t3))
      (v128.store64_lane offset=88 1 (local.get $so) (local.get $t3))
      (local.set $t0 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $qx) (local.get $qy)))
      (local.set $t1 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $qx) (local.get $qy)))
      (local.set $t2 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $qz) (local.get $qw)))
      (local.set $t3 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $qz) (local.get $qw)))
      (v128.store (local.get $ro) (f64x2.promote_low_f32x4 (local.get $t0)))
      (v128.store offset=16 (local.get $ro) (f64x2.promote_low_f32x4 (local.get $t2)))
      (v128.store offset=32 (local.get $ro) (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $t0) (local.get $t0))))
      (v128.store offset=48 (local.get $ro) (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $t2) (local.get $t2))))
      (v128.store offset=64 (local.get $ro) (f64x2.promote_low_f32x4 (local.get $t1)))
      (v128.store offset=80 (local.get $ro) (f64x2.promote_low_f32x4 (local.get $t3)))
      (v128.store offset=96 (local.get $ro) (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $t1) (local.get $t1))))
      (v128.store offset=112 (local.get $ro) (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $t3) (local.get $t3))))
      (if (i32.lt_u (local.get $lanes) (i32.const 4))
        (then
          (memory.copy (i32.add (local.get $ot) (i32.mul (local.get $g) (i32.const 96))) (local.get $to) (i32.mul (local.get $lanes) (i32.const 24)))
          (memory.copy (i32.add (local.get $or) (i32.shl (local.get $g) (i32.const 7))) (local.get $ro) (i32.shl (local.get $lanes) (i32.const 5)))
          (memory.copy (i32.add (local.get $os) (i32.mul (local.get $g) (i32.const 96))) (local.get $so) (i32.mul (local.get $lanes) (i32.const 24)))))
      (local.set $g (i32.add (local.get $g) (i32.const 1)))
      (br $loop))))

  ;; poseBlendTwo: out = a * wa + b * w per value of the translations and scales, and per bone
  ;; out = a * wa + b * (+-w) normalised for the rotations (the sign taking b into the scaled a's
  ;; hemisphere), wa and w read from scratch + 40 and 48; out may be a or b. n bones. $scales 0
  ;; leaves out's scales as they are, for a caller that knows a's, b's and out's are all exactly 1
  ;; and wa = 1 - w (rounded), w in [0, 1] (an update-rate interpolation), where every scale
  ;; blends to 1 exactly: the pass then reads and writes two thirds of the translations and
  ;; scales' bytes.
  (func (export "blend")
    (param $ot i32) (param $or i32) (param $os i32) (param $at i32) (param $ar i32) (param $as i32)
    (param $bt i32) (param $br i32) (param $bs i32) (param $n i32) (param $scales i32)
    (local $i i32) (local $end i32) (local $wa f64) (local $w f64) (local $vwa v128) (local $vw v128)
    (local $qlo v128) (local $qhi v128) (local $blo v128) (local $bhi v128) (local $lo2 v128) (local $hi2 v128)
    (local $inv v128) (local $v v128) (local $len2 f64)
    (local $fOne f64) (local $fEpsilon f64)
    (local.set $fOne (global.get $one))
    (local.set $fEpsilon (global.get $epsilon))
    (local.set $wa (f64.load offset=40 (global.get $scratch)))
    (local.set $w (f64.load offset=48 (global.get $scratch)))
    (local.set $vwa (f64x2.splat (local.get $wa)))
    (local.set $vw (f64x2.splat (local.get $w)))
    ;; Translations and scales: 3n values each, two at a time, the odd last one alone.
    (local.set $end (i32.mul (local.get $n) (i32.const 24)))
    (if (local.get $scales)
      (then
        (block $done (loop $pairs
          (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
          (v128.store (i32.add (local.get $ot) (local.get $i))
            (f64x2.add (f64x2.mul (v128.load (i32.add (local.get $at) (local.get $i))) (local.get $vwa))
              (f64x2.mul (v128.load (i32.add (local.get $bt) (local.get $i))) (local.get $vw))))
          (v128.store (i32.add (local.get $os) (local.get $i))
            (f64x2.add (f64x2.mul (v128.load (i32.add (local.get $as) (local.get $i))) (local.get $vwa))
              (f64x2.mul (v128.load (i32.add (local.get $bs) (local.get $i))) (local.get $vw))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $pairs)))
        (if (i32.lt_u (local.get $i) (local.get $end))
          (then
            (f64.store (i32.add (local.get $os) (local.get $i))
              (f64.add (f64.mul (f64.load (i32.add (local.get $as) (local.get $i))) (local.get $wa))
                (f64.mul (f64.load (i32.add (local.get $bs) (local.get $i))) (local.get $w)))))))
      (else
        (block $done (loop $pairs
          (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
          (v128.store (i32.add (local.get $ot) (local.get $i))
            (f64x2.add (f64x2.mul (v128.load (i32.add (local.get $at) (local.get $i))) (local.get $vwa))
              (f64x2.mul (v128.load (i32.add (local.get $bt) (local.get $i))) (local.get $vw))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $pairs)))))
    (if (i32.lt_u (local.get $i) (local.get $end))
      (then
        (f64.store (i32.add (local.get $ot) (local.get $i))
          (f64.add (f64.mul (f64.load (i32.add (local.get $at) (local.get $i))) (local.get $wa))
            (f64.mul (f64.load (i32.add (local.get $bt) (local.get $i))) (local.get $w))))))
    ;; Rotations, bone by bone.
    (local.set $i (i32.const 0))
    (local.set $end (i32.shl (local.get $n) (i32.const 5)))
    (block $done (loop $bones
      (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
      (local.set $qlo (f64x2.mul (v128.load (i32.add (local.get $ar) (local.get $i))) (local.get $vwa)))
      (local.set $qhi (f64x2.mul (v128.load offset=16 (i32.add (local.get $ar) (local.get $i))) (local.get $vwa)))
      (local.set $blo (v128.load (i32.add (local.get $br) (local.get $i))))
      (local.set $bhi (v128.load offset=16 (i32.add (local.get $br) (local.get $i))))
      (local.set $lo2 (f64x2.mul (local.get $qlo) (local.get $blo)))
      (local.set $hi2 (f64x2.mul (local.get $qhi) (local.get $bhi)))
      (local.set $v (f64x2.splat (select (f64.neg (local.get $w)) (local.get $w)
        (f64.lt (f64.add (f64.add (f64.add (f64x2.extract_lane 0 (local.get $lo2)) (f64x2.extract_lane 1 (local.get $lo2)))
          (f64x2.extract_lane 0 (local.get $hi2))) (f64x2.extract_lane 1 (local.get $hi2))) (f64.const 0)))))
      (local.set $qlo (f64x2.add (local.get $qlo) (f64x2.mul (local.get $blo) (local.get $v))))
      (local.set $qhi (f64x2.add (local.get $qhi) (f64x2.mul (local.get $bhi) (local.get $v))))
      (local.set $lo2 (f64x2.mul (local.get $qlo) (local.get $qlo)))
      (local.set $hi2 (f64x2.mul (local.get $qhi) (local.get $qhi)))
      (local.set $len2 (f64.add (f64.add (f64.add (f64x2.extract_lane 0 (local.get $lo2)) (f64x2.extract_lane 1 (local.get $lo2)))
        (f64x2.extract_lane 0 (local.get $hi2))) (f64x2.extract_lane 1 (local.get $hi2))))
      (if (i32.or (i32.eqz (f64.gt (local.get $len2) (local.get $fEpsilon)))
            (f64.ne (f64.sub (local.get $len2) (local.get $len2)) (f64.const 0)))
        (then
          (local.set $qlo (v128.const f64x2 0 0))
          (local.set $qhi (v128.const f64x2 0 1)))
        (else
          (local.set $inv (f64x2.splat (f64.div (local.get $fOne) (f64.sqrt (local.get $len2)))))
          (local.set $qlo (f64x2.mul (local.get $qlo) (local.get $inv)))
          (local.set $qhi (f64x2.mul (local.get $qhi) (local.get $inv)))))
      (v128.store (i32.add (local.get $or) (local.get $i)) (local.get $qlo))
      (v128.store offset=16 (i32.add (local.get $or) (local.get $i)) (local.get $qhi))
      (local.set $i (i32.add (local.get $i) (i32.const 32)))
      (br $bones))))

  ;; poseScaleInto: out = source * w per value (translations and scales 3n each, rotations 4n), w
  ;; read from scratch + 40; out may be source. The first term of a weighted sum of poses.
  (func (export "scale")
    (param $ot i32) (param $or i32) (param $os i32) (param $st i32) (param $sr i32) (param $ss i32) (param $n i32)
    (local $i i32) (local $end i32) (local $w f64) (local $vw v128)
    (local.set $w (f64.load offset=40 (global.get $scratch)))
    (local.set $vw (f64x2.splat (local.get $w)))
    ;; Translations and scales: 3n values each, two at a time, the odd last one alone.
    (local.set $end (i32.mul (local.get $n) (i32.const 24)))
    (block $done (loop $pairs
      (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
      (v128.store (i32.add (local.get $ot) (local.get $i)) (f64x2.mul (v128.load (i32.add (local.get $st) (local.get $i))) (local.get $vw)))
      (v128.store (i32.add (local.get $os) (local.get $i)) (f64x2.mul (v128.load (i32.add (local.get $ss) (local.get $i))) (local.get $vw)))
      (local.set $i (i32.add (local.get $i) (i32.const 16)))
      (br $pairs)))
    (if (i32.lt_u (local.get $i) (local.get $end))
      (then
        (f64.store (i32.add (local.get $ot) (local.get $i)) (f64.mul (f64.load (i32.add (local.get $st) (local.get $i))) (local.get $w)))
        (f64.store (i32.add (local.get $os) (local.get $i)) (f64.mul (f64.load (i32.add (local.get $ss) (local.get $i))) (local.get $w)))))
    ;; Rotations: 4n values, two at a time.
    (local.set $i (i32.const 0))
    (local.set $end (i32.shl (local.get $n) (i32.const 5)))
    (block $done (loop $quads
      (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
      (v128.store (i32.add (local.get $or) (local.get $i)) (f64x2.mul (v128.load (i32.add (local.get $sr) (local.get $i))) (local.get $vw)))
      (local.set $i (i32.add (local.get $i) (i32.const 16)))
      (br $quads))))

  ;; poseAccumulate: out += source * w per value of the translations and scales, and per bone
  ;; out += source * (+-w) for the rotations, the sign taking source into the running sum's
  ;; hemisphere (its dot product with out in the scalar order); w read from scratch + 40. n bones.
  (func (export "accumulate")
    (param $ot i32) (param $or i32) (param $os i32) (param $st i32) (param $sr i32) (param $ss i32) (param $n i32)
    (local $i i32) (local $end i32) (local $w f64) (local $vw v128)
    (local $qlo v128) (local $qhi v128) (local $blo v128) (local $bhi v128) (local $lo2 v128) (local $hi2 v128) (local $v v128)
    (local.set $w (f64.load offset=40 (global.get $scratch)))
    (local.set $vw (f64x2.splat (local.get $w)))
    (local.set $end (i32.mul (local.get $n) (i32.const 24)))
    (block $done (loop $pairs
      (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
      (v128.store (i32.add (local.get $ot) (local.get $i))
        (f64x2.add (v128.load (i32.add (local.get $ot) (local.get $i))) (f64x2.mul (v128.load (i32.add (local.get $st) (local.get $i))) (local.get $vw))))
      (v128.store (i32.add (local.get $os) (local.get $i))
        (f64x2.add (v128.load (i32.add (local.get $os) (local.get $i))) (f64x2.mul (v128.load (i32.add (local.get $ss) (local.get $i))) (local.get $vw))))
      (local.set $i (i32.add (local.get $i) (i32.const 16)))
      (br $pairs)))
    (if (i32.lt_u (local.get $i) (local.get $end))
      (then
        (f64.store (i32.add (local.get $ot) (local.get $i))
          (f64.add (f64.load (i32.add (local.get $ot) (local.get $i))) (f64.mul (f64.load (i32.add (local.get $st) (local.get $i))) (local.get $w))))
        (f64.store (i32.add (local.get $os) (local.get $i))
          (f64.add (f64.load (i32.add (local.get $os) (local.get $i))) (f64.mul (f64.load (i32.add (local.get $ss) (local.get $i))) (local.get $w))))))
    (local.set $i (i32.const 0))
    (local.set $end (i32.shl (local.get $n) (i32.const 5)))
    (block $done (loop $bones
      (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
      (local.set $qlo (v128.load (i32.add (local.get $or) (local.get $i))))
      (local.set $qhi (v128.load offset=16 (i32.add (local.get $or) (local.get $i))))
      (local.set $blo (v128.load (i32.add (local.get $sr) (local.get $i))))
      (local.set $bhi (v128.load offset=16 (i32.add (local.get $sr) (local.get $i))))
      (local.set $lo2 (f64x2.mul (local.get $qlo) (local.get $blo)))
      (local.set $hi2 (f64x2.mul (local.get $qhi) (local.get $bhi)))
      (local.set $v (f64x2.splat (select (f64.neg (local.get $w)) (local.get $w)
        (f64.lt (f64.add (f64.add (f64.add (f64x2.extract_lane 0 (local.get $lo2)) (f64x2.extract_lane 1 (local.get $lo2)))
          (f64x2.extract_lane 0 (local.get $hi2))) (f64x2.extract_lane 1 (local.get $hi2))) (f64.const 0)))))
      (v128.store (i32.add (local.get $or) (local.get $i)) (f64x2.add (local.get $qlo) (f64x2.mul (local.get $blo) (local.get $v))))
      (v128.store offset=16 (i32.add (local.get $or) (local.get $i)) (f64x2.add (local.get $qhi) (f64x2.mul (local.get $bhi) (local.get $v))))
      (local.set $i (i32.add (local.get $i) (i32.const 32)))
      (br $bones))))

  ;; poseNormalizeRotations: each of n rotations at or normalised as quatNormalize does (squared
  ;; length in the scalar order; not above 1e-12, or not finite: the identity).
  (func (export "normalize")
    (param $or i32) (param $n i32)
    (local $i i32) (local $end i32) (local $qlo v128) (local $qhi v128) (local $lo2 v128) (local $hi2 v128) (local $len2 f64) (local $inv v128)
    (local $fOne f64) (local $fEpsilon f64)
    (local.set $fOne (global.get $one))
    (local.set $fEpsilon (global.get $epsilon))
    (local.set $end (i32.shl (local.get $n) (i32.const 5)))
    (block $done (loop $bones
      (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
      (local.set $qlo (v128.load (i32.add (local.get $or) (local.get $i))))
      (local.set $qhi (v128.load offset=16 (i32.add (local.get $or) (local.get $i))))
      (local.set $lo2 (f64x2.mul (local.get $qlo) (local.get $qlo)))
      (local.set $hi2 (f64x2.mul (local.get $qhi) (local.get $qhi)))
      (local.set $len2 (f64.add (f64.add (f64.add (f64x2.extract_lane 0 (local.get $lo2)) (f64x2.extract_lane 1 (local.get $lo2)))
        (f64x2.extract_lane 0 (local.get $hi2))) (f64x2.extract_lane 1 (local.get $hi2))))
      (if (i32.or (i32.eqz (f64.gt (local.get $len2) (local.get $fEpsilon)))
            (f64.ne (f64.sub (local.get $len2) (local.get $len2)) (f64.const 0)))
        (then
          (local.set $qlo (v128.const f64x2 0 0))
          (local.set $qhi (v128.const f64x2 0 1)))
        (else
          (local.set $inv (f64x2.splat (f64.div (local.get $fOne) (f64.sqrt (local.get $len2)))))
          (local.set $qlo (f64x2.mul (local.get $qlo) (local.get $inv)))
          (local.set $qhi (f64x2.mul (local.get $qhi) (local.get $inv)))))
      (v128.store (i32.add (local.get $or) (local.get $i)) (local.get $qlo))
      (v128.store offset=16 (i32.add (local.get $or) (local.get $i)) (local.get $qhi))
      (local.set $i (i32.add (local.get $i) (i32.const 32)))
      (br $bones))))

  ;; LayeredBlendPerBone's local blend: per bone whose weight w (this thread's bone weights) is above
  ;; 0, out = out * (1 - w) + layer * w for the translation and scale, out * (1 - w) + layer * (+-w)
  ;; for the rotation (the sign taking the layer into out's hemisphere), then normalised as
  ;; quatNormalize does; other bones are left as they are. n bones.
  (func (export "layer")
    (param $ot i32) (param $or i32) (param $os i32) (param $lt i32) (param $lr i32) (param $ls i32) (param $n i32)
    (local $bone i32) (local $o i32) (local $l i32) (local $w f64) (local $s f64) (local $vw v128) (local $vs v128)
    (local $qlo v128) (local $qhi v128) (local $blo v128) (local $bhi v128) (local $lo2 v128) (local $hi2 v128) (local $v v128) (local $len2 f64) (local $inv v128)
    (local $fOne f64) (local $fEpsilon f64)
    (local.set $fOne (global.get $one))
    (local.set $fEpsilon (global.get $epsilon))
    (block $done (loop $bones
      (br_if $done (i32.ge_u (local.get $bone) (local.get $n)))
      (local.set $w (f64.load (i32.add (global.get $boneWeights) (i32.shl (local.get $bone) (i32.const 3)))))
      (if (f64.gt (local.get $w) (f64.const 0))
        (then
          (local.set $s (f64.sub (local.get $fOne) (local.get $w)))
          (local.set $vw (f64x2.splat (local.get $w)))
          (local.set $vs (f64x2.splat (local.get $s)))
          ;; Translation and scale: (x, y) in a lane pair, z alone.
          (local.set $o (i32.add (local.get $ot) (i32.mul (local.get $bone) (i32.const 24))))
          (local.set $l (i32.add (local.get $lt) (i32.mul (local.get $bone) (i32.const 24))))
          (v128.store (local.get $o) (f64x2.add (f64x2.mul (v128.load (local.get $o)) (local.get $vs)) (f64x2.mul (v128.load (local.get $l)) (local.get $vw))))
          (f64.store offset=16 (local.get $o) (f64.add (f64.mul (f64.load offset=16 (local.get $o)) (local.get $s)) (f64.mul (f64.load offset=16 (local.get $l)) (local.get $w))))
          (local.set $o (i32.add (local.get $os) (i32.mul (local.get $bone) (i32.const 24))))
          (local.set $l (i32.add (local.get $ls) (i32.mul (local.get $bone) (i32.const 24))))
          (v128.store (local.get $o) (f64x2.add (f64x2.mul (v128.load (local.get $o)) (local.get $vs)) (f64x2.mul (v128.load (local.get $l)) (local.get $vw))))
          (f64.store offset=16 (local.get $o) (f64.add (f64.mul (f64.load offset=16 (local.get $o)) (local.get $s)) (f64.mul (f64.load offset=16 (local.get $l)) (local.get $w))))
          ;; Rotation.
          (local.set $o (i32.add (local.get $or) (i32.shl (local.get $bone) (i32.const 5))))
          (local.set $l (i32.add (local.get $lr) (i32.shl (local.get $bone) (i32.const 5))))
          (local.set $qlo (v128.load (local.get $o)))
          (local.set $qhi (v128.load offset=16 (local.get $o)))
          (local.set $blo (v128.load (local.get $l)))
          (local.set $bhi (v128.load offset=16 (local.get $l)))
          (local.set $lo2 (f64x2.mul (local.get $qlo) (local.get $blo)))
          (local.set $hi2 (f64x2.mul (local.get $qhi) (local.get $bhi)))
          (local.set $v (f64x2.splat (select (f64.neg (local.get $w)) (local.get $w)
            (f64.lt (f64.add (f64.add (f64.add (f64x2.extract_lane 0 (local.get $lo2)) (f64x2.extract_lane 1 (local.get $lo2)))
              (f64x2.extract_lane 0 (local.get $hi2))) (f64x2.extract_lane 1 (local.get $hi2))) (f64.const 0)))))
          (local.set $qlo (f64x2.add (f64x2.mul (local.get $qlo) (local.get $vs)) (f64x2.mul (local.get $blo) (local.get $v))))
          (local.set $qhi (f64x2.add (f64x2.mul (local.get $qhi) (local.get $vs)) (f64x2.mul (local.get $bhi) (local.get $v))))
          (local.set $lo2 (f64x2.mul (local.get $qlo) (local.get $qlo)))
          (local.set $hi2 (f64x2.mul (local.get $qhi) (local.get $qhi)))
          (local.set $len2 (f64.add (f64.add (f64.add (f64x2.extract_lane 0 (local.get $lo2)) (f64x2.extract_lane 1 (local.get $lo2)))
            (f64x2.extract_lane 0 (local.get $hi2))) (f64x2.extract_lane 1 (local.get $hi2))))
          (if (i32.or (i32.eqz (f64.gt (local.get $len2) (local.get $fEpsilon)))
                (f64.ne (f64.sub (local.get $len2) (local.get $len2)) (f64.const 0)))
            (then
              (local.set $qlo (v128.const f64x2 0 0))
              (local.set $qhi (v128.const f64x2 0 1)))
            (else
              (local.set $inv (f64x2.splat (f64.div (local.get $fOne) (f64.sqrt (local.get $len2)))))
              (local.set $qlo (f64x2.mul (local.get $qlo) (local.get $inv)))
              (local.set $qhi (f64x2.mul (local.get $qhi) (local.get $inv)))))
          (v128.store (local.get $o) (local.get $qlo))
          (v128.store offset=16 (local.get $o) (local.get $qhi))))
      (local.set $bone (i32.add (local.get $bone) (i32.const 1)))
      (br $bones))))

  ;; evaluatePerBoneInputs' first input (runtime/jobs/crossfade.ts): every value of bone b of the pose at
  ;; ot/or/os scaled by this thread's bone weight b. n bones.
  (func (export "scaleBones")
    (param $ot i32) (param $or i32) (param $os i32) (param $n i32)
    (local $bone i32) (local $o i32) (local $w f64) (local $vw v128)
    (block $done (loop $bones
      (br_if $done (i32.ge_u (local.get $bone) (local.get $n)))
      (local.set $w (f64.load (i32.add (global.get $boneWeights) (i32.shl (local.get $bone) (i32.const 3)))))
      (local.set $vw (f64x2.splat (local.get $w)))
      (local.set $o (i32.add (local.get $ot) (i32.mul (local.get $bone) (i32.const 24))))
      (v128.store (local.get $o) (f64x2.mul (v128.load (local.get $o)) (local.get $vw)))
      (f64.store offset=16 (local.get $o) (f64.mul (f64.load offset=16 (local.get $o)) (local.get $w)))
      (local.set $o (i32.add (local.get $os) (i32.mul (local.get $bone) (i32.const 24))))
      (v128.store (local.get $o) (f64x2.mul (v128.load (local.get $o)) (local.get $vw)))
      (f64.store offset=16 (local.get $o) (f64.mul (f64.load offset=16 (local.get $o)) (local.get $w)))
      (local.set $o (i32.add (local.get $or) (i32.shl (local.get $bone) (i32.const 5))))
      (v128.store (local.get $o) (f64x2.mul (v128.load (local.get $o)) (local.get $vw)))
      (v128.store offset=16 (local.get $o) (f64x2.mul (v128.load offset=16 (local.get $o)) (local.get $vw)))
      (local.set $bone (i32.add (local.get $bone) (i32.const 1)))
      (br $bones))))

  ;; evaluatePerBoneInputs' further inputs: per bone whose weight w (this thread's bone weights) is
  ;; not 0, out += source * w for the translation and scale and out += source * (+-w) for the
  ;; rotation, the sign taking source into the running sum's hemisphere. n bones.
  (func (export "accumulateBones")
    (param $ot i32) (param $or i32) (param $os i32) (param $st i32) (param $sr i32) (param $ss i32) (param $n i32)
    (local $bone i32) (local $o i32) (local $l i32) (local $w f64) (local $vw v128)
    (local $qlo v128) (local $qhi v128) (local $blo v128) (local $bhi v128) (local $lo2 v128) (local $hi2 v128) (local $v v128)
    (block $done (loop $bones
      (br_if $done (i32.ge_u (local.get $bone) (local.get $n)))
      (local.set $w (f64.load (i32.add (global.get $boneWeights) (i32.shl (local.get $bone) (i32.const 3)))))
      (if (f64.ne (local.get $w) (f64.const 0))
        (then
          (local.set $vw (f64x2.splat (local.get $w)))
          (local.set $o (i32.add (local.get $ot) (i32.mul (local.get $bone) (i32.const 24))))
          (local.set $l (i32.add (local.get $st) (i32.mul (local.get $bone) (i32.const 24))))
          (v128.store (local.get $o) (f64x2.add (v128.load (local.get $o)) (f64x2.mul (v128.load (local.get $l)) (local.get $vw))))
          (f64.store offset=16 (local.get $o) (f64.add (f64.load offset=16 (local.get $o)) (f64.mul (f64.load offset=16 (local.get $l)) (local.get $w))))
          (local.set $o (i32.add (local.get $os) (i32.mul (local.get $bone) (i32.const 24))))
          (local.set $l (i32.add (local.get $ss) (i32.mul (local.get $bone) (i32.const 24))))
          (v128.store (local.get $o) (f64x2.add (v128.load (local.get $o)) (f64x2.mul (v128.load (local.get $l)) (local.get $vw))))
          (f64.store offset=16 (local.get $o) (f64.add (f64.load offset=16 (local.get $o)) (f64.mul (f64.load offset=16 (local.get $l)) (local.get $w))))
          (local.set $o (i32.add (local.get $or) (i32.shl (local.get $bone) (i32.const 5))))
          (local.set $l (i32.add (local.get $sr) (i32.shl (local.get $bone) (i32.const 5))))
          (local.set $qlo (v128.load (local.get $o)))
          (local.set $qhi (v128.load offset=16 (local.get $o)))
          (local.set $blo (v128.load (local.get $l)))
          (local.set $bhi (v128.load offset=16 (local.get $l)))
          (local.set $lo2 (f64x2.mul (local.get $qlo) (local.get $blo)))
          (local.set $hi2 (f64x2.mul (local.get $qhi) (local.get $bhi)))
          (local.set $v (f64x2.splat (select (f64.neg (local.get $w)) (local.get $w)
            (f64.lt (f64.add (f64.add (f64.add (f64x2.extract_lane 0 (local.get $lo2)) (f64x2.extract_lane 1 (local.get $lo2)))
              (f64x2.extract_lane 0 (local.get $hi2))) (f64x2.extract_lane 1 (local.get $hi2))) (f64.const 0)))))
          (v128.store (local.get $o) (f64x2.add (local.get $qlo) (f64x2.mul (local.get $blo) (local.get $v))))
          (v128.store offset=16 (local.get $o) (f64x2.add (local.get $qhi) (f64x2.mul (local.get $bhi) (local.get $v))))))
      (local.set $bone (i32.add (local.get $bone) (i32.const 1)))
      (br $bones))))

  ;; Slot's filtered blend (nodes/Slot.ts blendFiltered): per bone whose weight a (this thread's bone
  ;; weights) is not negative (a negative weight marks a bone left as it is), out += (pose - out) * a
  ;; for the translation and scale, and out * (1 - a) + pose * (+-a) for the rotation (the sign taking
  ;; the pose into out's hemisphere), normalised as quatNormalize does. n bones.
  (func (export "lerpBones")
    (param $ot i32) (param $or i32) (param $os i32) (param $pt i32) (param $pr i32) (param $ps i32) (param $n i32)
    (local $bone i32) (local $o i32) (local $l i32) (local $a f64) (local $va v128) (local $vs v128)
    (local $qlo v128) (local $qhi v128) (local $blo v128) (local $bhi v128) (local $lo2 v128) (local $hi2 v128) (local $v v128) (local $len2 f64) (local $inv v128)
    (local $fOne f64) (local $fEpsilon f64)
    (local.set $fOne (global.get $one))
    (local.set $fEpsilon (global.get $epsilon))
    (block $done (loop $bones
      (br_if $done (i32.ge_u (local.get $bone) (local.get $n)))
      (local.set $a (f64.load (i32.add (global.get $boneWeights) (i32.shl (local.get $bone) (i32.const 3)))))
      (if (f64.ge (local.get $a) (f64.const 0))
        (then
          (local.set $va (f64x2.splat (local.get $a)))
          (local.set $o (i32.add (local.get $ot) (i32.mul (local.get $bone) (i32.const 24))))
          (local.set $l (i32.add (local.get $pt) (i32.mul (local.get $bone) (i32.const 24))))
          (v128.store (local.get $o) (f64x2.add (v128.load (local.get $o)) (f64x2.mul (f64x2.sub (v128.load (local.get $l)) (v128.load (local.get $o))) (local.get $va))))
          (f64.store offset=16 (local.get $o) (f64.add (f64.load offset=16 (local.get $o))
            (f64.mul (f64.sub (f64.load offset=16 (local.get $l)) (f64.load offset=16 (local.get $o))) (local.get $a))))
          (local.set $o (i32.add (local.get $os) (i32.mul (local.get $bone) (i32.const 24))))
          (local.set $l (i32.add (local.get $ps) (i32.mul (local.get $bone) (i32.const 24))))
          (v128.store (local.get $o) (f64x2.add (v128.load (local.get $o)) (f64x2.mul (f64x2.sub (v128.load (local.get $l)) (v128.load (local.get $o))) (local.get $va))))
          (f64.store offset=16 (local.get $o) (f64.add (f64.load offset=16 (local.get $o))
            (f64.mul (f64.sub (f64.load offset=16 (local.get $l)) (f64.load offset=16 (local.get $o))) (local.get $a))))
          (local.set $o (i32.add (local.get $or) (i32.shl (local.get $bone) (i32.const 5))))
          (local.set $l (i32.add (local.get $pr) (i32.shl (local.get $bone) (i32.const 5))))
          (local.set $qlo (v128.load (local.get $o)))
          (local.set $qhi (v128.load offset=16 (local.get $o)))
          (local.set $blo (v128.load (local.get $l)))
          (local.set $bhi (v128.load offset=16 (local.get $l)))
          (local.set $lo2 (f64x2.mul (local.get $qlo) (local.get $blo)))
          (local.set $hi2 (f64x2.mul (local.get $qhi) (local.get $bhi)))
          (local.set $v (f64x2.splat (select (f64.neg (local.get $a)) (local.get $a)
            (f64.lt (f64.add (f64.add (f64.add (f64x2.extract_lane 0 (local.get $lo2)) (f64x2.extract_lane 1 (local.get $lo2)))
              (f64x2.extract_lane 0 (local.get $hi2))) (f64x2.extract_lane 1 (local.get $hi2))) (f64.const 0)))))
          (local.set $vs (f64x2.splat (f64.sub (local.get $fOne) (local.get $a))))
          (local.set $qlo (f64x2.add (f64x2.mul (local.get $qlo) (local.get $vs)) (f64x2.mul (local.get $blo) (local.get $v))))
          (local.set $qhi (f64x2.add (f64x2.mul (local.get $qhi) (local.get $vs)) (f64x2.mul (local.get $bhi) (local.get $v))))
          (local.set $lo2 (f64x2.mul (local.get $qlo) (local.get $qlo)))
          (local.set $hi2 (f64x2.mul (local.get $qhi) (local.get $qhi)))
          (local.set $len2 (f64.add (f64.add (f64.add (f64x2.extract_lane 0 (local.get $lo2)) (f64x2.extract_lane 1 (local.get $lo2)))
            (f64x2.extract_lane 0 (local.get $hi2))) (f64x2.extract_lane 1 (local.get $hi2))))
          (if (i32.or (i32.eqz (f64.gt (local.get $len2) (local.get $fEpsilon)))
                (f64.ne (f64.sub (local.get $len2) (local.get $len2)) (f64.const 0)))
            (then
              (local.set $qlo (v128.const f64x2 0 0))
              (local.set $qhi (v128.const f64x2 0 1)))
            (else
              (local.set $inv (f64x2.splat (f64.div (local.get $fOne) (f64.sqrt (local.get $len2)))))
              (local.set $qlo (f64x2.mul (local.get $qlo) (local.get $inv)))
              (local.set $qhi (f64x2.mul (local.get $qhi) (local.get $inv)))))
          (v128.store (local.get $o) (local.get $qlo))
          (v128.store offset=16 (local.get $o) (local.get $qhi))))
      (local.set $bone (i32.add (local.get $bone) (i32.const 1)))
      (br $bones))))

  ;; The component-space poses of `count` characters' local poses at lt/lr/ls (n bones each, one
  ;; character after another) into ct/cr/cs, parents first: ComponentPose.ensureAllComponent with
  ;; every bone stale (composeBone's arithmetic: translation = parentT + parentR * (parentS *
  ;; childT), rotation = parentR * childR normalised, scale = parentS * childS; a root copies its
  ;; local transform). Two characters share each f64x2, one per lane (their x in one vector, their
  ;; y in another, and so on), so every operation is composeBone's own in JavaScript's order, done
  ;; for both at once, and no sum runs across lanes; an odd last character fills both lanes. A bone
  ;; waits on its parent's normalised rotation (a square root and a division), so one character's
  ;; pass is a chain of latencies: eight characters (four pairs) are composed bone by bone
  ;; together, whose chains overlap.
  (func (export "compose")
    (param $lt i32) (param $lr i32) (param $ls i32) (param $ct i32) (param $cr i32) (param $cs i32) (param $n i32) (param $count i32)
    (local $bone i32) (local $parent i32) (local $b3 i32) (local $b4 i32) (local $p3 i32) (local $p4 i32)
    (local $first i32) (local $last i32) (local $c i32) (local $row3 i32) (local $row4 i32)
    (local $d3 i32) (local $d4 i32) (local $ta i32) (local $tb i32) (local $pa i32) (local $pb i32)
    (local $ra i32) (local $rb i32) (local $qa i32) (local $qb i32)
    (local $lo v128) (local $hi v128)
    (local $psx v128) (local $psy v128) (local $psz v128) (local $qx v128) (local $qy v128) (local $qz v128) (local $qw v128)
    (local $vx v128) (local $vy v128) (local $vz v128) (local $tx v128) (local $ty v128) (local $tz v128)
    (local $bx v128) (local $by v128) (local $bz v128) (local $bw v128)
    (local $rx v128) (local $ry v128) (local $rz v128) (local $rw v128) (local $len2 v128) (local $inv v128) (local $ok v128) (local $d v128) (local $one v128) (local $epsilon v128)
    (local.set $one (global.get $ones))
    (local.set $epsilon (global.get $epsilons))
    (local.set $row3 (i32.mul (local.get $n) (i32.const 24)))
    (local.set $row4 (i32.shl (local.get $n) (i32.const 5)))
    (block $characters (loop $groups
      (br_if $characters (i32.ge_u (local.get $first) (local.get $count)))
      (local.set $last (select (i32.add (local.get $first) (i32.const 8)) (local.get $count)
        (i32.lt_u (i32.add (local.get $first) (i32.const 8)) (local.get $count))))
      (local.set $bone (i32.const 0))
    (block $done (loop $bones
      (br_if $done (i32.ge_u (local.get $bone) (local.get $n)))
      (local.set $parent (i32.load (i32.add (global.get $parents) (i32.shl (local.get $bone) (i32.const 2)))))
      (local.set $b3 (i32.mul (local.get $bone) (i32.const 24)))
      (local.set $b4 (i32.shl (local.get $bone) (i32.const 5)))
      (local.set $p3 (i32.mul (local.get $parent) (i32.const 24)))
      (local.set $p4 (i32.shl (local.get $parent) (i32.const 5)))
      (local.set $c (local.get $first))
    (loop $pairs
      ;; Character c in lane 0 and c + 1 in lane 1 (c again when c is the last): their rows are
      ;; d3 (d4 for rotations) bytes apart.
      (local.set $d3 (select (local.get $row3) (i32.const 0) (i32.lt_u (i32.add (local.get $c) (i32.const 1)) (local.get $last))))
      (local.set $d4 (select (local.get $row4) (i32.const 0) (i32.lt_u (i32.add (local.get $c) (i32.const 1)) (local.get $last))))
      (local.set $ta (i32.add (i32.mul (local.get $c) (local.get $row3)) (local.get $b3)))
      (local.set $tb (i32.add (local.get $ta) (local.get $d3)))
      (local.set $ra (i32.add (i32.shl (i32.mul (local.get $c) (local.get $n)) (i32.const 5)) (local.get $b4)))
      (local.set $rb (i32.add (local.get $ra) (local.get $d4)))
      (if (i32.lt_s (local.get $parent) (i32.const 0))
        (then
          (v128.store (i32.add (local.get $ct) (local.get $ta)) (v128.load (i32.add (local.get $lt) (local.get $ta))))
          (f64.store offset=16 (i32.add (local.get $ct) (local.get $ta)) (f64.load offset=16 (i32.add (local.get $lt) (local.get $ta))))
          (v128.store (i32.add (local.get $cr) (local.get $ra)) (v128.load (i32.add (local.get $lr) (local.get $ra))))
          (v128.store offset=16 (i32.add (local.get $cr) (local.get $ra)) (v128.load offset=16 (i32.add (local.get $lr) (local.get $ra))))
          (v128.store (i32.add (local.get $cs) (local.get $ta)) (v128.load (i32.add (local.get $ls) (local.get $ta))))
          (f64.store offset=16 (i32.add (local.get $cs) (local.get $ta)) (f64.load offset=16 (i32.add (local.get $ls) (local.get $ta))))
          (v128.store (i32.add (local.get $ct) (local.get $tb)) (v128.load (i32.add (local.get $lt) (local.get $tb))))
          (f64.store offset=16 (i32.add (local.get $ct) (local.get $tb)) (f64.load offset=16 (i32.add (local.get $lt) (local.get $tb))))
          (v128.store (i32.add (local.get $cr) (local.get $rb)) (v128.load (i32.add (local.get $lr) (local.get $rb))))
          (v128.store offset=16 (i32.add (local.get $cr) (local.get $rb)) (v128.load offset=16 (i32.add (local.get $lr) (local.get $rb))))
          (v128.store (i32.add (local.get $cs) (local.get $tb)) (v128.load (i32.add (local.get $ls) (local.get $tb))))
          (f64.store offset=16 (i32.add (local.get $cs) (local.get $tb)) (f64.load offset=16 (i32.add (local.get $ls) (local.get $tb)))))
        (else
          (local.set $pa (i32.add (i32.sub (local.get $ta) (local.get $b3)) (local.get $p3)))
          (local.set $pb (i32.add (local.get $pa) (local.get $d3)))
          (local.set $qa (i32.add (i32.sub (local.get $ra) (local.get $b4)) (local.get $p4)))
          (local.set $qb (i32.add (local.get $qa) (local.get $d4)))
          ;; The parents' scales and rotations, a lane each: (x, y) of both rows unpacked into an x
          ;; and a y vector; z (and w) likewise, or read into its lane. Each is read as it was
          ;; written (v128 as v128, f64 as f64), which keeps store forwarding.
          (local.set $lo (v128.load (i32.add (local.get $cs) (local.get $pa))))
          (local.set $hi (v128.load (i32.add (local.get $cs) (local.get $pb))))
          (local.set $psx (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $lo) (local.get $hi)))
          (local.set $psy (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $lo) (local.get $hi)))
          (local.set $psz (v128.load64_lane offset=16 1 (i32.add (local.get $cs) (local.get $pb))
            (v128.load64_zero offset=16 (i32.add (local.get $cs) (local.get $pa)))))
          (local.set $lo (v128.load (i32.add (local.get $cr) (local.get $qa))))
          (local.set $hi (v128.load (i32.add (local.get $cr) (local.get $qb))))
          (local.set $qx (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $lo) (local.get $hi)))
          (local.set $qy (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $lo) (local.get $hi)))
          (local.set $lo (v128.load offset=16 (i32.add (local.get $cr) (local.get $qa))))
          (local.set $hi (v128.load offset=16 (i32.add (local.get $cr) (local.get $qb))))
          (local.set $qz (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $lo) (local.get $hi)))
          (local.set $qw (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $lo) (local.get $hi)))
          ;; v = parentS * childT; t = 2 (q.xyz x v), doubled as d + d (the same double as 2 * d,
          ;; without a constant to make); component = parentT + (v + qw t + q.xyz x t)
          (local.set $lo (v128.load (i32.add (local.get $lt) (local.get $ta))))
          (local.set $hi (v128.load (i32.add (local.get $lt) (local.get $tb))))
          (local.set $vx (f64x2.mul (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $lo) (local.get $hi)) (local.get $psx)))
          (local.set $vy (f64x2.mul (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $lo) (local.get $hi)) (local.get $psy)))
          (local.set $vz (f64x2.mul (v128.load64_lane offset=16 1 (i32.add (local.get $lt) (local.get $tb))
            (v128.load64_zero offset=16 (i32.add (local.get $lt) (local.get $ta)))) (local.get $psz)))
          (local.set $tx (f64x2.add (local.tee $d (f64x2.sub (f64x2.mul (local.get $qy) (local.get $vz)) (f64x2.mul (local.get $qz) (local.get $vy)))) (local.get $d)))
          (local.set $ty (f64x2.add (local.tee $d (f64x2.sub (f64x2.mul (local.get $qz) (local.get $vx)) (f64x2.mul (local.get $qx) (local.get $vz)))) (local.get $d)))
          (local.set $tz (f64x2.add (local.tee $d (f64x2.sub (f64x2.mul (local.get $qx) (local.get $vy)) (f64x2.mul (local.get $qy) (local.get $vx)))) (local.get $d)))
          (local.set $lo (v128.load (i32.add (local.get $ct) (local.get $pa))))
          (local.set $hi (v128.load (i32.add (local.get $ct) (local.get $pb))))
          (local.set $vx (f64x2.add (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $lo) (local.get $hi))
            (f64x2.add (f64x2.add (local.get $vx) (f64x2.mul (local.get $qw) (local.get $tx)))
              (f64x2.sub (f64x2.mul (local.get $qy) (local.get $tz)) (f64x2.mul (local.get $qz) (local.get $ty))))))
          (local.set $vy (f64x2.add (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $lo) (local.get $hi))
            (f64x2.add (f64x2.add (local.get $vy) (f64x2.mul (local.get $qw) (local.get $ty)))
              (f64x2.sub (f64x2.mul (local.get $qz) (local.get $tx)) (f64x2.mul (local.get $qx) (local.get $tz))))))
          (local.set $vz (f64x2.add (v128.load64_lane offset=16 1 (i32.add (local.get $ct) (local.get $pb))
              (v128.load64_zero offset=16 (i32.add (local.get $ct) (local.get $pa))))
            (f64x2.add (f64x2.add (local.get $vz) (f64x2.mul (local.get $qw) (local.get $tz)))
              (f64x2.sub (f64x2.mul (local.get $qx) (local.get $ty)) (f64x2.mul (local.get $qy) (local.get $tx))))))
          (v128.store (i32.add (local.get $ct) (local.get $ta)) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $vx) (local.get $vy)))
          (v128.store (i32.add (local.get $ct) (local.get $tb)) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $vx) (local.get $vy)))
          (v128.store64_lane offset=16 0 (i32.add (local.get $ct) (local.get $ta)) (local.get $vz))
          (v128.store64_lane offset=16 1 (i32.add (local.get $ct) (local.get $tb)) (local.get $vz))
          ;; parentR * childR, in JavaScript's order, then normalised (quatNormalize: a length
          ;; squared of at most 1e-12, or not finite, gives the identity)
          (local.set $lo (v128.load (i32.add (local.get $lr) (local.get $ra))))
          (local.set $hi (v128.load (i32.add (local.get $lr) (local.get $rb))))
          (local.set $bx (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $lo) (local.get $hi)))
          (local.set $by (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $lo) (local.get $hi)))
          (local.set $lo (v128.load offset=16 (i32.add (local.get $lr) (local.get $ra))))
          (local.set $hi (v128.load offset=16 (i32.add (local.get $lr) (local.get $rb))))
          (local.set $bz (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $lo) (local.get $hi)))
          (local.set $bw (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $lo) (local.get $hi)))
          (local.set $rx (f64x2.sub (f64x2.add (f64x2.add (f64x2.mul (local.get $qw) (local.get $bx)) (f64x2.mul (local.get $qx) (local.get $bw)))
            (f64x2.mul (local.get $qy) (local.get $bz))) (f64x2.mul (local.get $qz) (local.get $by))))
          (local.set $ry (f64x2.add (f64x2.add (f64x2.sub (f64x2.mul (local.get $qw) (local.get $by)) (f64x2.mul (local.get $qx) (local.get $bz)))
            (f64x2.mul (local.get $qy) (local.get $bw))) (f64x2.mul (local.get $qz) (local.get $bx))))
          (local.set $rz (f64x2.add (f64x2.sub (f64x2.add (f64x2.mul (local.get $qw) (local.get $bz)) (f64x2.mul (local.get $qx) (local.get $by)))
            (f64x2.mul (local.get $qy) (local.get $bx))) (f64x2.mul (local.get $qz) (local.get $bw))))
          (local.set $rw (f64x2.sub (f64x2.sub (f64x2.sub (f64x2.mul (local.get $qw) (local.get $bw)) (f64x2.mul (local.get $qx) (local.get $bx)))
            (f64x2.mul (local.get $qy) (local.get $by))) (f64x2.mul (local.get $qz) (local.get $bz))))
          (local.set $len2 (f64x2.add (f64x2.add (f64x2.add (f64x2.mul (local.get $rx) (local.get $rx)) (f64x2.mul (local.get $ry) (local.get $ry)))
            (f64x2.mul (local.get $rz) (local.get $rz))) (f64x2.mul (local.get $rw) (local.get $rw))))
          (local.set $ok (v128.and (f64x2.gt (local.get $len2) (local.get $epsilon))
            (f64x2.eq (f64x2.sub (local.get $len2) (local.get $len2)) (v128.const f64x2 0 0))))
          (local.set $inv (f64x2.div (local.get $one) (f64x2.sqrt (local.get $len2))))
          (local.set $rx (v128.and (f64x2.mul (local.get $rx) (local.get $inv)) (local.get $ok)))
          (local.set $ry (v128.and (f64x2.mul (local.get $ry) (local.get $inv)) (local.get $ok)))
          (local.set $rz (v128.and (f64x2.mul (local.get $rz) (local.get $inv)) (local.get $ok)))
          (local.set $rw (v128.bitselect (f64x2.mul (local.get $rw) (local.get $inv)) (local.get $one) (local.get $ok)))
          (v128.store (i32.add (local.get $cr) (local.get $ra)) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $rx) (local.get $ry)))
          (v128.store offset=16 (i32.add (local.get $cr) (local.get $ra)) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $rz) (local.get $rw)))
          (v128.store (i32.add (local.get $cr) (local.get $rb)) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $rx) (local.get $ry)))
          (v128.store offset=16 (i32.add (local.get $cr) (local.get $rb)) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $rz) (local.get $rw)))
          ;; scale = parentS * childS
          (local.set $lo (v128.load (i32.add (local.get $ls) (local.get $ta))))
          (local.set $hi (v128.load (i32.add (local.get $ls) (local.get $tb))))
          (local.set $vx (f64x2.mul (local.get $psx) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $lo) (local.get $hi))))
          (local.set $vy (f64x2.mul (local.get $psy) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $lo) (local.get $hi))))
          (local.set $vz (f64x2.mul (local.get $psz) (v128.load64_lane offset=16 1 (i32.add (local.get $ls) (local.get $tb))
            (v128.load64_zero offset=16 (i32.add (local.get $ls) (local.get $ta))))))
          (v128.store (i32.add (local.get $cs) (local.get $ta)) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $vx) (local.get $vy)))
          (v128.store (i32.add (local.get $cs) (local.get $tb)) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $vx) (local.get $vy)))
          (v128.store64_lane offset=16 0 (i32.add (local.get $cs) (local.get $ta)) (local.get $vz))
          (v128.store64_lane offset=16 1 (i32.add (local.get $cs) (local.get $tb)) (local.get $vz))))
      (local.set $c (i32.add (local.get $c) (i32.const 2)))
      (br_if $pairs (i32.lt_u (local.get $c) (local.get $last))))
      (local.set $bone (i32.add (local.get $bone) (i32.const 1)))
      (br $bones)))
      (local.set $first (local.get $last))
      (br $groups))))

  ;; compose in single precision (InstanceBatch's and Crowd's component pass with precision
  ;; 'single'): the same steps in float32, four characters to a vector, one a lane (their x in one
  ;; vector, their y in another, and so on), so no sum runs across lanes; lanes past the last
  ;; character repeat it. Each local transform is rounded to float32 as it is read (the characters'
  ;; rows, four to a vector), and each component transform kept as float32 vectors in this thread's
  ;; $scr (per bone two groups of four characters, 160 bytes each: translation x, y, z, rotation x,
  ;; y, z, w, scale x, y, z), where its children read it. Eight characters (two vectors) are composed
  ;; bone by bone together, whose chains of parent-to-child latencies overlap; then written to their
  ;; component rows character by character, each row from its first bone to its last: written four
  ;; rows at a time as they are composed, the rows' cache lines, fetched before they are written,
  ;; cost more than the arithmetic.
  (func (export "composeSingle")
    (param $lt i32) (param $lr i32) (param $ls i32) (param $ct i32) (param $cr i32) (param $cs i32) (param $n i32) (param $count i32) (param $scr i32)
    (local $j i32) (local $src i32) (local $wt i32) (local $wr i32) (local $ws i32) (local $end i32)
    (local $bone i32) (local $parent i32) (local $b3 i32) (local $b4 i32)
    (local $first i32) (local $last i32) (local $c i32) (local $row3 i32) (local $row4 i32) (local $q i32) (local $pq i32)
    (local $t0 i32) (local $t1 i32) (local $t2 i32) (local $t3 i32) (local $r0 i32) (local $r1 i32) (local $r2 i32) (local $r3 i32)
    (local $a v128) (local $b v128)
    (local $lx v128) (local $ly v128) (local $lz v128) (local $bx v128) (local $by v128) (local $bz v128) (local $bw v128)
    (local $sx v128) (local $sy v128) (local $sz v128)
    (local $psx v128) (local $psy v128) (local $psz v128) (local $qx v128) (local $qy v128) (local $qz v128) (local $qw v128)
    (local $vx v128) (local $vy v128) (local $vz v128) (local $tx v128) (local $ty v128) (local $tz v128) (local $d v128)
    (local $rx v128) (local $ry v128) (local $rz v128) (local $rw v128) (local $len2 v128) (local $inv v128) (local $ok v128)
    (local $one v128) (local $epsilon v128)
    (local.set $one (global.get $onesF))
    (local.set $epsilon (global.get $epsilonsF))
    (local.set $row3 (i32.mul (local.get $n) (i32.const 24)))
    (local.set $row4 (i32.shl (local.get $n) (i32.const 5)))
    (block $characters (loop $groups
      (br_if $characters (i32.ge_u (local.get $first) (local.get $count)))
      (local.set $last (select (i32.add (local.get $first) (i32.const 8)) (local.get $count)
        (i32.lt_u (i32.add (local.get $first) (i32.const 8)) (local.get $count))))
      (local.set $bone (i32.const 0))
    (block $done (loop $bones
      (br_if $done (i32.ge_u (local.get $bone) (local.get $n)))
      (local.set $parent (i32.load (i32.add (global.get $parents) (i32.shl (local.get $bone) (i32.const 2)))))
      (local.set $b3 (i32.mul (local.get $bone) (i32.const 24)))
      (local.set $b4 (i32.shl (local.get $bone) (i32.const 5)))
      (local.set $q (i32.add (local.get $scr) (i32.mul (local.get $bone) (i32.const 320))))
      (local.set $pq (i32.add (local.get $scr) (i32.mul (local.get $parent) (i32.const 320))))
      (local.set $c (local.get $first))
    (loop $quads
      ;; Characters c to c + 3 in lanes 0 to 3 (the last character again past it): rows t0..t3 of
      ;; translations and scales, r0..r3 of rotations, at this bone.
      (local.set $t0 (i32.add (i32.mul (local.get $c) (local.get $row3)) (local.get $b3)))
      (local.set $t1 (i32.add (local.get $t0) (select (local.get $row3) (i32.const 0) (i32.lt_u (i32.add (local.get $c) (i32.const 1)) (local.get $last)))))
      (local.set $t2 (i32.add (local.get $t1) (select (local.get $row3) (i32.const 0) (i32.lt_u (i32.add (local.get $c) (i32.const 2)) (local.get $last)))))
      (local.set $t3 (i32.add (local.get $t2) (select (local.get $row3) (i32.const 0) (i32.lt_u (i32.add (local.get $c) (i32.const 3)) (local.get $last)))))
      (local.set $r0 (i32.add (i32.shl (i32.mul (local.get $c) (local.get $n)) (i32.const 5)) (local.get $b4)))
      (local.set $r1 (i32.add (local.get $r0) (select (local.get $row4) (i32.const 0) (i32.lt_u (i32.add (local.get $c) (i32.const 1)) (local.get $last)))))
      (local.set $r2 (i32.add (local.get $r1) (select (local.get $row4) (i32.const 0) (i32.lt_u (i32.add (local.get $c) (i32.const 2)) (local.get $last)))))
      (local.set $r3 (i32.add (local.get $r2) (select (local.get $row4) (i32.const 0) (i32.lt_u (i32.add (local.get $c) (i32.const 3)) (local.get $last)))))
      ;; The local transforms of the four characters, a lane each (x of four rows in one vector, y in another...).
      (local.set $a (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (v128.load (i32.add (local.get $lt) (local.get $t0)))) (f32x4.demote_f64x2_zero (v128.load (i32.add (local.get $lt) (local.get $t1))))))
      (local.set $b (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (v128.load (i32.add (local.get $lt) (local.get $t2)))) (f32x4.demote_f64x2_zero (v128.load (i32.add (local.get $lt) (local.get $t3))))))
      (local.set $lx (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $a) (local.get $b)))
      (local.set $ly (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $a) (local.get $b)))
      (local.set $lz (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (v128.load64_lane offset=16 1 (i32.add (local.get $lt) (local.get $t1)) (v128.load64_zero offset=16 (i32.add (local.get $lt) (local.get $t0)))))
        (f32x4.demote_f64x2_zero (v128.load64_lane offset=16 1 (i32.add (local.get $lt) (local.get $t3)) (v128.load64_zero offset=16 (i32.add (local.get $lt) (local.get $t2)))))))
      (local.set $a (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (v128.load (i32.add (local.get $lr) (local.get $r0)))) (f32x4.demote_f64x2_zero (v128.load (i32.add (local.get $lr) (local.get $r1))))))
      (local.set $b (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (v128.load (i32.add (local.get $lr) (local.get $r2)))) (f32x4.demote_f64x2_zero (v128.load (i32.add (local.get $lr) (local.get $r3))))))
      (local.set $bx (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $a) (local.get $b)))
      (local.set $by (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $a) (local.get $b)))
      (local.set $a (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (v128.load offset=16 (i32.add (local.get $lr) (local.get $r0)))) (f32x4.demote_f64x2_zero (v128.load offset=16 (i32.add (local.get $lr) (local.get $r1))))))
      (local.set $b (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (v128.load offset=16 (i32.add (local.get $lr) (local.get $r2)))) (f32x4.demote_f64x2_zero (v128.load offset=16 (i32.add (local.get $lr) (local.get $r3))))))
      (local.set $bz (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $a) (local.get $b)))
      (local.set $bw (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $a) (local.get $b)))
      (local.set $a (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (v128.load (i32.add (local.get $ls) (local.get $t0)))) (f32x4.demote_f64x2_zero (v128.load (i32.add (local.get $ls) (local.get $t1))))))
      (local.set $b (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (v128.load (i32.add (local.get $ls) (local.get $t2)))) (f32x4.demote_f64x2_zero (v128.load (i32.add (local.get $ls) (local.get $t3))))))
      (local.set $sx (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $a) (local.get $b)))
      (local.set $sy (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $a) (local.get $b)))
      (local.set $sz (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (v128.load64_lane offset=16 1 (i32.add (local.get $ls) (local.get $t1)) (v128.load64_zero offset=16 (i32.add (local.get $ls) (local.get $t0)))))
        (f32x4.demote_f64x2_zero (v128.load64_lane offset=16 1 (i32.add (local.get $ls) (local.get $t3)) (v128.load64_zero offset=16 (i32.add (local.get $ls) (local.get $t2)))))))
      (if (i32.ge_s (local.get $parent) (i32.const 0))
        (then
          ;; The parent's component transform, as this group's vectors in scratch.
          (local.set $psx (v128.load offset=112 (local.get $pq)))
          (local.set $psy (v128.load offset=128 (local.get $pq)))
          (local.set $psz (v128.load offset=144 (local.get $pq)))
          (local.set $qx (v128.load offset=48 (local.get $pq)))
          (local.set $qy (v128.load offset=64 (local.get $pq)))
          (local.set $qz (v128.load offset=80 (local.get $pq)))
          (local.set $qw (v128.load offset=96 (local.get $pq)))
          ;; v = parentS * childT; t = 2 (q.xyz x v), as d + d; component = parentT + (v + qw t + q.xyz x t)
          (local.set $vx (f32x4.mul (local.get $lx) (local.get $psx)))
          (local.set $vy (f32x4.mul (local.get $ly) (local.get $psy)))
          (local.set $vz (f32x4.mul (local.get $lz) (local.get $psz)))
          (local.set $tx (f32x4.add (local.tee $d (f32x4.sub (f32x4.mul (local.get $qy) (local.get $vz)) (f32x4.mul (local.get $qz) (local.get $vy)))) (local.get $d)))
          (local.set $ty (f32x4.add (local.tee $d (f32x4.sub (f32x4.mul (local.get $qz) (local.get $vx)) (f32x4.mul (local.get $qx) (local.get $vz)))) (local.get $d)))
          (local.set $tz (f32x4.add (local.tee $d (f32x4.sub (f32x4.mul (local.get $qx) (local.get $vy)) (f32x4.mul (local.get $qy) (local.get $vx)))) (local.get $d)))
          (local.set $lx (f32x4.add (v128.load (local.get $pq))
            (f32x4.add (f32x4.add (local.get $vx) (f32x4.mul (local.get $qw) (local.get $tx)))
              (f32x4.sub (f32x4.mul (local.get $qy) (local.get $tz)) (f32x4.mul (local.get $qz) (local.get $ty))))))
          (local.set $ly (f32x4.add (v128.load offset=16 (local.get $pq))
            (f32x4.add (f32x4.add (local.get $vy) (f32x4.mul (local.get $qw) (local.get $ty)))
              (f32x4.sub (f32x4.mul (local.get $qz) (local.get $tx)) (f32x4.mul (local.get $qx) (local.get $tz))))))
          (local.set $lz (f32x4.add (v128.load offset=32 (local.get $pq))
            (f32x4.add (f32x4.add (local.get $vz) (f32x4.mul (local.get $qw) (local.get $tz)))
              (f32x4.sub (f32x4.mul (local.get $qx) (local.get $ty)) (f32x4.mul (local.get $qy) (local.get $tx))))))
          ;; parentR * childR, then normalised (quatNormalize: a length squared of at most 1e-12, or
          ;; not finite, gives the identity)
          (local.set $rx (f32x4.sub (f32x4.add (f32x4.add (f32x4.mul (local.get $qw) (local.get $bx)) (f32x4.mul (local.get $qx) (local.get $bw)))
            (f32x4.mul (local.get $qy) (local.get $bz))) (f32x4.mul (local.get $qz) (local.get $by))))
          (local.set $ry (f32x4.add (f32x4.add (f32x4.sub (f32x4.mul (local.get $qw) (local.get $by)) (f32x4.mul (local.get $qx) (local.get $bz)))
            (f32x4.mul (local.get $qy) (local.get $bw))) (f32x4.mul (local.get $qz) (local.get $bx))))
          (local.set $rz (f32x4.add (f32x4.sub (f32x4.add (f32x4.mul (local.get $qw) (local.get $bz)) (f32x4.mul (local.get $qx) (local.get $by)))
            (f32x4.mul (local.get $qy) (local.get $bx))) (f32x4.mul (local.get $qz) (local.get $bw))))
          (local.set $rw (f32x4.sub (f32x4.sub (f32x4.sub (f32x4.mul (local.get $qw) (local.get $bw)) (f32x4.mul (local.get $qx) (local.get $bx)))
            (f32x4.mul (local.get $qy) (local.get $by))) (f32x4.mul (local.get $qz) (local.get $bz))))
          (local.set $len2 (f32x4.add (f32x4.add (f32x4.add (f32x4.mul (local.get $rx) (local.get $rx)) (f32x4.mul (local.get $ry) (local.get $ry)))
            (f32x4.mul (local.get $rz) (local.get $rz))) (f32x4.mul (local.get $rw) (local.get $rw))))
          (local.set $ok (v128.and (f32x4.gt (local.get $len2) (local.get $epsilon))
            (f32x4.eq (f32x4.sub (local.get $len2) (local.get $len2)) (v128.const f32x4 0 0 0 0))))
          (local.set $inv (f32x4.div (local.get $one) (f32x4.sqrt (local.get $len2))))
          (local.set $bx (v128.and (f32x4.mul (local.get $rx) (local.get $inv)) (local.get $ok)))
          (local.set $by (v128.and (f32x4.mul (local.get $ry) (local.get $inv)) (local.get $ok)))
          (local.set $bz (v128.and (f32x4.mul (local.get $rz) (local.get $inv)) (local.get $ok)))
          (local.set $bw (v128.bitselect (f32x4.mul (local.get $rw) (local.get $inv)) (local.get $one) (local.get $ok)))
          ;; scale = parentS * childS
          (local.set $sx (f32x4.mul (local.get $psx) (local.get $sx)))
          (local.set $sy (f32x4.mul (local.get $psy) (local.get $sy)))
          (local.set $sz (f32x4.mul (local.get $psz) (local.get $sz)))))
      ;; (A root's component transform is its local one.) Kept for its children and the rows.
      (v128.store (local.get $q) (local.get $lx))
      (v128.store offset=16 (local.get $q) (local.get $ly))
      (v128.store offset=32 (local.get $q) (local.get $lz))
      (v128.store offset=48 (local.get $q) (local.get $bx))
      (v128.store offset=64 (local.get $q) (local.get $by))
      (v128.store offset=80 (local.get $q) (local.get $bz))
      (v128.store offset=96 (local.get $q) (local.get $bw))
      (v128.store offset=112 (local.get $q) (local.get $sx))
      (v128.store offset=128 (local.get $q) (local.get $sy))
      (v128.store offset=144 (local.get $q) (local.get $sz))
      (local.set $a (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $lx) (local.get $ly)))
      (local.set $b (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $lx) (local.get $ly)))
      (local.set $a (f64x2.promote_low_f32x4 (local.get $lz)))
      (local.set $b (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $lz) (local.get $lz))))
      (local.set $a (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $bx) (local.get $by)))
      (local.set $b (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $bx) (local.get $by)))
      (local.set $a (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $bz) (local.get $bw)))
      (local.set $b (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $bz) (local.get $bw)))
      (local.set $a (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $sx) (local.get $sy)))
      (local.set $b (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $sx) (local.get $sy)))
      (local.set $a (f64x2.promote_low_f32x4 (local.get $sz)))
      (local.set $b (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $sz) (local.get $sz))))
      (local.set $q (i32.add (local.get $q) (i32.const 160)))
      (local.set $pq (i32.add (local.get $pq) (i32.const 160)))
      (local.set $c (i32.add (local.get $c) (i32.const 4)))
      (br_if $quads (i32.lt_u (local.get $c) (local.get $last))))
      (local.set $bone (i32.add (local.get $bone) (i32.const 1)))
      (br $bones)))
      ;; Written to the rows character by character, each row in order.
      (local.set $j (local.get $first))
      (loop $rows
        (local.set $src (i32.add (i32.add (local.get $scr) (i32.mul (i32.shr_u (i32.sub (local.get $j) (local.get $first)) (i32.const 2)) (i32.const 160)))
          (i32.shl (i32.and (i32.sub (local.get $j) (local.get $first)) (i32.const 3)) (i32.const 2))))
        (local.set $wt (i32.add (local.get $ct) (i32.mul (local.get $j) (local.get $row3))))
        (local.set $wr (i32.add (local.get $cr) (i32.mul (local.get $j) (local.get $row4))))
        (local.set $ws (i32.add (local.get $cs) (i32.mul (local.get $j) (local.get $row3))))
        (local.set $end (i32.add (local.get $wt) (local.get $row3)))
        (loop $write
          (v128.store (local.get $wt) (f64x2.promote_low_f32x4 (v128.load32_lane offset=16 1 (local.get $src) (v128.load32_zero offset=0 (local.get $src)))))
          (f64.store offset=16 (local.get $wt) (f64.promote_f32 (f32.load offset=32 (local.get $src))))
          (v128.store (local.get $wr) (f64x2.promote_low_f32x4 (v128.load32_lane offset=64 1 (local.get $src) (v128.load32_zero offset=48 (local.get $src)))))
          (v128.store offset=16 (local.get $wr) (f64x2.promote_low_f32x4 (v128.load32_lane offset=96 1 (local.get $src) (v128.load32_zero offset=80 (local.get $src)))))
          (v128.store (local.get $ws) (f64x2.promote_low_f32x4 (v128.load32_lane offset=128 1 (local.get $src) (v128.load32_zero offset=112 (local.get $src)))))
          (f64.store offset=16 (local.get $ws) (f64.promote_f32 (f32.load offset=144 (local.get $src))))
          (local.set $src (i32.add (local.get $src) (i32.const 320)))
          (local.set $wr (i32.add (local.get $wr) (i32.const 32)))
          (local.set $ws (i32.add (local.get $ws) (i32.const 24)))
          (br_if $write (i32.lt_u (local.tee $wt (i32.add (local.get $wt) (i32.const 24))) (local.get $end))))
        (br_if $rows (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (local.get $last))))
      (local.set $first (local.get $last))
      (br $groups))))

  ;; A renderer's skinning matrices (the three.js binding's, runtime/kernel/sampling-kernel.ts's
  ;; skin): for each of `count` slots, the root matrix at `root` (affine, column-major: 16 f64) × the
  ;; component transform (translations, rotations, scales at ct/cr/cs) of graph bone slots[i] (i32)
  ;; × that slot's inverse bind matrix (affine), rounded to float32 into out + 64 i, whose last row
  ;; (0 0 0 1) it leaves as it is. Two slots to a vector: the inverse bind matrices lie at `inv` by
  ;; pairs of slots, each of the 12 numbers of the upper three rows (column by column) as a lane pair,
  ;; 192 bytes a pair; an odd count reads one slot more (a copy of the last: `slots`, `inv` and
  ;; `out` hold it). The operations of skinAffine (three/binding.ts), its JavaScript twin, in its order, so the
  ;; same float32 numbers.
  (func (export "skin")
    (param $ct i32) (param $cr i32) (param $cs i32) (param $slots i32) (param $inv i32) (param $root i32) (param $out i32) (param $count i32)
    (local $i i32) (local $b i32) (local $ta i32) (local $tb i32) (local $ra i32) (local $rb i32) (local $sa i32) (local $sb i32) (local $oa i32)
    (local $m0 v128) (local $m1 v128) (local $m2 v128) (local $m4 v128) (local $m5 v128) (local $m6 v128) (local $m8 v128) (local $m9 v128) (local $m10 v128) (local $m12 v128) (local $m13 v128) (local $m14 v128)
    (local $one v128) (local $x v128) (local $y v128) (local $z v128) (local $w v128) (local $x2 v128) (local $y2 v128) (local $z2 v128)
    (local $xx v128) (local $xy v128) (local $xz v128) (local $yy v128) (local $yz v128) (local $zz v128) (local $wx v128) (local $wy v128) (local $wz v128)
    (local $sx v128) (local $sy v128) (local $sz v128) (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c4 v128) (local $c5 v128) (local $c6 v128) (local $c8 v128) (local $c9 v128) (local $c10 v128) (local $c12 v128) (local $c13 v128) (local $c14 v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a4 v128) (local $a5 v128) (local $a6 v128) (local $a8 v128) (local $a9 v128) (local $a10 v128) (local $a12 v128) (local $a13 v128) (local $a14 v128) (local $q0 v128) (local $q1 v128) (local $q2 v128) (local $d v128)
    (local.set $one (global.get $ones))
    (local.set $m0 (v128.load64_splat offset=0 (local.get $root)))
    (local.set $m1 (v128.load64_splat offset=8 (local.get $root)))
    (local.set $m2 (v128.load64_splat offset=16 (local.get $root)))
    (local.set $m4 (v128.load64_splat offset=32 (local.get $root)))
    (local.set $m5 (v128.load64_splat offset=40 (local.get $root)))
    (local.set $m6 (v128.load64_splat offset=48 (local.get $root)))
    (local.set $m8 (v128.load64_splat offset=64 (local.get $root)))
    (local.set $m9 (v128.load64_splat offset=72 (local.get $root)))
    (local.set $m10 (v128.load64_splat offset=80 (local.get $root)))
    (local.set $m12 (v128.load64_splat offset=96 (local.get $root)))
    (local.set $m13 (v128.load64_splat offset=104 (local.get $root)))
    (local.set $m14 (v128.load64_splat offset=112 (local.get $root)))
    (block $done (loop $pairs
      (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
      ;; Slot i in lane 0, slot i + 1 in lane 1: their bones' component transforms.
      (local.set $b (i32.load (i32.add (local.get $slots) (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $ta (i32.add (local.get $ct) (i32.mul (local.get $b) (i32.const 24))))
      (local.set $sa (i32.add (local.get $cs) (i32.mul (local.get $b) (i32.const 24))))
      (local.set $ra (i32.add (local.get $cr) (i32.shl (local.get $b) (i32.const 5))))
      (local.set $b (i32.load offset=4 (i32.add (local.get $slots) (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $tb (i32.add (local.get $ct) (i32.mul (local.get $b) (i32.const 24))))
      (local.set $sb (i32.add (local.get $cs) (i32.mul (local.get $b) (i32.const 24))))
      (local.set $rb (i32.add (local.get $cr) (i32.shl (local.get $b) (i32.const 5))))
      (local.set $x (v128.load64_lane offset=0 1 (local.get $rb) (v128.load64_splat offset=0 (local.get $ra))))
      (local.set $y (v128.load64_lane offset=8 1 (local.get $rb) (v128.load64_splat offset=8 (local.get $ra))))
      (local.set $z (v128.load64_lane offset=16 1 (local.get $rb) (v128.load64_splat offset=16 (local.get $ra))))
      (local.set $w (v128.load64_lane offset=24 1 (local.get $rb) (v128.load64_splat offset=24 (local.get $ra))))
      (local.set $sx (v128.load64_lane offset=0 1 (local.get $sb) (v128.load64_splat offset=0 (local.get $sa))))
      (local.set $sy (v128.load64_lane offset=8 1 (local.get $sb) (v128.load64_splat offset=8 (local.get $sa))))
      (local.set $sz (v128.load64_lane offset=16 1 (local.get $sb) (v128.load64_splat offset=16 (local.get $sa))))
      (local.set $c12 (v128.load64_lane offset=0 1 (local.get $tb) (v128.load64_splat offset=0 (local.get $ta))))
      (local.set $c13 (v128.load64_lane offset=8 1 (local.get $tb) (v128.load64_splat offset=8 (local.get $ta))))
      (local.set $c14 (v128.load64_lane offset=16 1 (local.get $tb) (v128.load64_splat offset=16 (local.get $ta))))
      ;; The component transform as a matrix, as Matrix4.compose builds one.
      (local.set $x2 (f64x2.add (local.get $x) (local.get $x)))
      (local.set $y2 (f64x2.add (local.get $y) (local.get $y)))
      (local.set $z2 (f64x2.add (local.get $z) (local.get $z)))
      (local.set $xx (f64x2.mul (local.get $x) (local.get $x2)))
      (local.set $xy (f64x2.mul (local.get $x) (local.get $y2)))
      (local.set $xz (f64x2.mul (local.get $x) (local.get $z2)))
      (local.set $yy (f64x2.mul (local.get $y) (local.get $y2)))
      (local.set $yz (f64x2.mul (local.get $y) (local.get $z2)))
      (local.set $zz (f64x2.mul (local.get $z) (local.get $z2)))
      (local.set $wx (f64x2.mul (local.get $w) (local.get $x2)))
      (local.set $wy (f64x2.mul (local.get $w) (local.get $y2)))
      (local.set $wz (f64x2.mul (local.get $w) (local.get $z2)))
      (local.set $c0 (f64x2.mul (f64x2.sub (local.get $one) (f64x2.add (local.get $yy) (local.get $zz))) (local.get $sx)))
      (local.set $c1 (f64x2.mul (f64x2.add (local.get $xy) (local.get $wz)) (local.get $sx)))
      (local.set $c2 (f64x2.mul (f64x2.sub (local.get $xz) (local.get $wy)) (local.get $sx)))
      (local.set $c4 (f64x2.mul (f64x2.sub (local.get $xy) (local.get $wz)) (local.get $sy)))
      (local.set $c5 (f64x2.mul (f64x2.sub (local.get $one) (f64x2.add (local.get $xx) (local.get $zz))) (local.get $sy)))
      (local.set $c6 (f64x2.mul (f64x2.add (local.get $yz) (local.get $wx)) (local.get $sy)))
      (local.set $c8 (f64x2.mul (f64x2.add (local.get $xz) (local.get $wy)) (local.get $sz)))
      (local.set $c9 (f64x2.mul (f64x2.sub (local.get $yz) (local.get $wx)) (local.get $sz)))
      (local.set $c10 (f64x2.mul (f64x2.sub (local.get $one) (f64x2.add (local.get $xx) (local.get $yy))) (local.get $sz)))
      ;; The bone's world matrix: root × that.
      (local.set $a0 (f64x2.add (f64x2.add (f64x2.mul (local.get $m0) (local.get $c0)) (f64x2.mul (local.get $m4) (local.get $c1))) (f64x2.mul (local.get $m8) (local.get $c2))))
      (local.set $a1 (f64x2.add (f64x2.add (f64x2.mul (local.get $m1) (local.get $c0)) (f64x2.mul (local.get $m5) (local.get $c1))) (f64x2.mul (local.get $m9) (local.get $c2))))
      (local.set $a2 (f64x2.add (f64x2.add (f64x2.mul (local.get $m2) (local.get $c0)) (f64x2.mul (local.get $m6) (local.get $c1))) (f64x2.mul (local.get $m10) (local.get $c2))))
      (local.set $a4 (f64x2.add (f64x2.add (f64x2.mul (local.get $m0) (local.get $c4)) (f64x2.mul (local.get $m4) (local.get $c5))) (f64x2.mul (local.get $m8) (local.get $c6))))
      (local.set $a5 (f64x2.add (f64x2.add (f64x2.mul (local.get $m1) (local.get $c4)) (f64x2.mul (local.get $m5) (local.get $c5))) (f64x2.mul (local.get $m9) (local.get $c6))))
      (local.set $a6 (f64x2.add (f64x2.add (f64x2.mul (local.get $m2) (local.get $c4)) (f64x2.mul (local.get $m6) (local.get $c5))) (f64x2.mul (local.get $m10) (local.get $c6))))
      (local.set $a8 (f64x2.add (f64x2.add (f64x2.mul (local.get $m0) (local.get $c8)) (f64x2.mul (local.get $m4) (local.get $c9))) (f64x2.mul (local.get $m8) (local.get $c10))))
      (local.set $a9 (f64x2.add (f64x2.add (f64x2.mul (local.get $m1) (local.get $c8)) (f64x2.mul (local.get $m5) (local.get $c9))) (f64x2.mul (local.get $m9) (local.get $c10))))
      (local.set $a10 (f64x2.add (f64x2.add (f64x2.mul (local.get $m2) (local.get $c8)) (f64x2.mul (local.get $m6) (local.get $c9))) (f64x2.mul (local.get $m10) (local.get $c10))))
      (local.set $a12 (f64x2.add (f64x2.add (f64x2.add (f64x2.mul (local.get $m0) (local.get $c12)) (f64x2.mul (local.get $m4) (local.get $c13))) (f64x2.mul (local.get $m8) (local.get $c14))) (local.get $m12)))
      (local.set $a13 (f64x2.add (f64x2.add (f64x2.add (f64x2.mul (local.get $m1) (local.get $c12)) (f64x2.mul (local.get $m5) (local.get $c13))) (f64x2.mul (local.get $m9) (local.get $c14))) (local.get $m13)))
      (local.set $a14 (f64x2.add (f64x2.add (f64x2.add (f64x2.mul (local.get $m2) (local.get $c12)) (f64x2.mul (local.get $m6) (local.get $c13))) (f64x2.mul (local.get $m10) (local.get $c14))) (local.get $m14)))
      ;; × the inverse bind matrix, column by column (Matrix4.multiplyMatrices' sums, in its order).
      (local.set $oa (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 6))))
      (local.set $q0 (v128.load offset=0 (local.get $inv)))
      (local.set $q1 (v128.load offset=16 (local.get $inv)))
      (local.set $q2 (v128.load offset=32 (local.get $inv)))
      (local.set $d (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a0) (local.get $q0)) (f64x2.mul (local.get $a4) (local.get $q1))) (f64x2.mul (local.get $a8) (local.get $q2)))))
      (v128.store32_lane offset=0 0 (local.get $oa) (local.get $d))
      (v128.store32_lane offset=64 1 (local.get $oa) (local.get $d))
      (local.set $d (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a1) (local.get $q0)) (f64x2.mul (local.get $a5) (local.get $q1))) (f64x2.mul (local.get $a9) (local.get $q2)))))
      (v128.store32_lane offset=4 0 (local.get $oa) (local.get $d))
      (v128.store32_lane offset=68 1 (local.get $oa) (local.get $d))
      (local.set $d (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a2) (local.get $q0)) (f64x2.mul (local.get $a6) (local.get $q1))) (f64x2.mul (local.get $a10) (local.get $q2)))))
      (v128.store32_lane offset=8 0 (local.get $oa) (local.get $d))
      (v128.store32_lane offset=72 1 (local.get $oa) (local.get $d))
      (local.set $q0 (v128.load offset=48 (local.get $inv)))
      (local.set $q1 (v128.load offset=64 (local.get $inv)))
      (local.set $q2 (v128.load offset=80 (local.get $inv)))
      (local.set $d (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a0) (local.get $q0)) (f64x2.mul (local.get $a4) (local.get $q1))) (f64x2.mul (local.get $a8) (local.get $q2)))))
      (v128.store32_lane offset=16 0 (local.get $oa) (local.get $d))
      (v128.store32_lane offset=80 1 (local.get $oa) (local.get $d))
      (local.set $d (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a1) (local.get $q0)) (f64x2.mul (local.get $a5) (local.get $q1))) (f64x2.mul (local.get $a9) (local.get $q2)))))
      (v128.store32_lane offset=20 0 (local.get $oa) (local.get $d))
      (v128.store32_lane offset=84 1 (local.get $oa) (local.get $d))
      (local.set $d (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a2) (local.get $q0)) (f64x2.mul (local.get $a6) (local.get $q1))) (f64x2.mul (local.get $a10) (local.get $q2)))))
      (v128.store32_lane offset=24 0 (local.get $oa) (local.get $d))
      (v128.store32_lane offset=88 1 (local.get $oa) (local.get $d))
      (local.set $q0 (v128.load offset=96 (local.get $inv)))
      (local.set $q1 (v128.load offset=112 (local.get $inv)))
      (local.set $q2 (v128.load offset=128 (local.get $inv)))
      (local.set $d (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a0) (local.get $q0)) (f64x2.mul (local.get $a4) (local.get $q1))) (f64x2.mul (local.get $a8) (local.get $q2)))))
      (v128.store32_lane offset=32 0 (local.get $oa) (local.get $d))
      (v128.store32_lane offset=96 1 (local.get $oa) (local.get $d))
      (local.set $d (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a1) (local.get $q0)) (f64x2.mul (local.get $a5) (local.get $q1))) (f64x2.mul (local.get $a9) (local.get $q2)))))
      (v128.store32_lane offset=36 0 (local.get $oa) (local.get $d))
      (v128.store32_lane offset=100 1 (local.get $oa) (local.get $d))
      (local.set $d (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a2) (local.get $q0)) (f64x2.mul (local.get $a6) (local.get $q1))) (f64x2.mul (local.get $a10) (local.get $q2)))))
      (v128.store32_lane offset=40 0 (local.get $oa) (local.get $d))
      (v128.store32_lane offset=104 1 (local.get $oa) (local.get $d))
      (local.set $q0 (v128.load offset=144 (local.get $inv)))
      (local.set $q1 (v128.load offset=160 (local.get $inv)))
      (local.set $q2 (v128.load offset=176 (local.get $inv)))
      (local.set $d (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.add (f64x2.mul (local.get $a0) (local.get $q0)) (f64x2.mul (local.get $a4) (local.get $q1))) (f64x2.mul (local.get $a8) (local.get $q2))) (local.get $a12))))
      (v128.store32_lane offset=48 0 (local.get $oa) (local.get $d))
      (v128.store32_lane offset=112 1 (local.get $oa) (local.get $d))
      (local.set $d (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.add (f64x2.mul (local.get $a1) (local.get $q0)) (f64x2.mul (local.get $a5) (local.get $q1))) (f64x2.mul (local.get $a9) (local.get $q2))) (local.get $a13))))
      (v128.store32_lane offset=52 0 (local.get $oa) (local.get $d))
      (v128.store32_lane offset=116 1 (local.get $oa) (local.get $d))
      (local.set $d (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.add (f64x2.mul (local.get $a2) (local.get $q0)) (f64x2.mul (local.get $a6) (local.get $q1))) (f64x2.mul (local.get $a10) (local.get $q2))) (local.get $a14))))
      (v128.store32_lane offset=56 0 (local.get $oa) (local.get $d))
      (v128.store32_lane offset=120 1 (local.get $oa) (local.get $d))
      (local.set $inv (i32.add (local.get $inv) (i32.const 192)))
      (local.set $i (i32.add (local.get $i) (i32.const 2)))
      (br $pairs))))

  ;; PoseInertializer.apply (runtime/jobs/inertialization.ts): the decaying offsets of an inertial
  ;; transition added to the pose at pt/pr/ps (n bones), from the inertializer's numbers at `block`
  ;; (this frame's powers of the elapsed time, then per bone the translation directions, rotation
  ;; axes and scale directions, the three curves of seven numbers each and which curves are live),
  ;; with JavaScript's IEEE operations in its order. Per bone and curve: x = x0 + v0 t + (a0/2) t^2
  ;; + C t^3 + B t^4 + A t^5 while t < t1, else 0; a translation or scale adds direction * x; a
  ;; rotation is premultiplied by the rotation of x about its axis, whose half angle's sine and
  ;; cosine come from fdlibm's kernels on x/4 and the double-angle formulas (Math.sin and Math.cos
  ;; beyond |x/4| = pi/4), then renormalised by one Newton step when near unit, else in full.
  (func (export "inertialize")
    (param $pt i32) (param $pr i32) (param $ps i32) (param $n i32) (param $block i32)
    (local $td i32) (local $ra i32) (local $sd i32) (local $tc i32) (local $rc i32) (local $sc i32) (local $live i32)
    (local $bone i32) (local $m i32) (local $c i32) (local $o i32) (local $d i32)
    (local $t f64) (local $p1 f64) (local $p2 f64) (local $p3 f64) (local $p4 f64) (local $x f64)
    (local $q f64) (local $z f64) (local $z2 f64) (local $sq f64) (local $cq f64) (local $s f64) (local $w f64)
    (local $ax f64) (local $ay f64) (local $az f64) (local $bx f64) (local $by f64) (local $bz f64) (local $bw f64)
    (local $rx f64) (local $ry f64) (local $rz f64) (local $rw f64) (local $n2 f64) (local $k f64) (local $near i32)
    (local.set $td (i32.add (local.get $block) (i32.const 64)))
    (local.set $ra (i32.add (local.get $td) (i32.mul (local.get $n) (i32.const 24))))
    (local.set $sd (i32.add (local.get $ra) (i32.mul (local.get $n) (i32.const 24))))
    (local.set $tc (i32.add (local.get $sd) (i32.mul (local.get $n) (i32.const 24))))
    (local.set $rc (i32.add (local.get $tc) (i32.mul (local.get $n) (i32.const 56))))
    (local.set $sc (i32.add (local.get $rc) (i32.mul (local.get $n) (i32.const 56))))
    (local.set $live (i32.add (local.get $sc) (i32.mul (local.get $n) (i32.const 56))))
    ;; [t, t^2/2, t^3, t^4, t^5] (curvePowers)
    (local.set $t (f64.load (local.get $block)))
    (local.set $p1 (f64.load offset=8 (local.get $block)))
    (local.set $p2 (f64.load offset=16 (local.get $block)))
    (local.set $p3 (f64.load offset=24 (local.get $block)))
    (local.set $p4 (f64.load offset=32 (local.get $block)))
    (block $done (loop $bones
      (br_if $done (i32.ge_u (local.get $bone) (local.get $n)))
      (local.set $m (i32.trunc_sat_f64_s (f64.load (i32.add (local.get $live) (i32.shl (local.get $bone) (i32.const 3))))))
      (if (local.get $m)
        (then
          (local.set $c (i32.mul (local.get $bone) (i32.const 56)))
          (local.set $d (i32.mul (local.get $bone) (i32.const 24)))

          ;; Translation: curveAt(translationCurve) along its direction.
          (if (i32.and (local.get $m) (i32.const 1))
            (then
              (local.set $o (i32.add (local.get $tc) (local.get $c)))
              (local.set $x (f64.const 0))
              (if (f64.lt (local.get $t) (f64.load offset=24 (local.get $o)))
                (then
                  (local.set $x (f64.add (f64.add (f64.add (f64.add (f64.add (f64.load (local.get $o))
                    (f64.mul (f64.load offset=8 (local.get $o)) (local.get $t)))
                    (f64.mul (f64.load offset=16 (local.get $o)) (local.get $p1)))
                    (f64.mul (f64.load offset=48 (local.get $o)) (local.get $p2)))
                    (f64.mul (f64.load offset=40 (local.get $o)) (local.get $p3)))
                    (f64.mul (f64.load offset=32 (local.get $o)) (local.get $p4))))))
              (if (f64.ne (local.get $x) (f64.const 0))
                (then
                  (local.set $o (i32.add (local.get $pt) (local.get $d)))
                  (v128.store (local.get $o) (f64x2.add (v128.load (local.get $o))
                    (f64x2.mul (v128.load (i32.add (local.get $td) (local.get $d))) (f64x2.splat (local.get $x)))))
                  (f64.store offset=16 (local.get $o) (f64.add (f64.load offset=16 (local.get $o))
                    (f64.mul (f64.load offset=16 (i32.add (local.get $td) (local.get $d))) (local.get $x))))))))

          ;; Scale, as the translation.
          (if (i32.and (local.get $m) (i32.const 4))
            (then
              (local.set $o (i32.add (local.get $sc) (local.get $c)))
              (local.set $x (f64.const 0))
              (if (f64.lt (local.get $t) (f64.load offset=24 (local.get $o)))
                (then
                  (local.set $x (f64.add (f64.add (f64.add (f64.add (f64.add (f64.load (local.get $o))
                    (f64.mul (f64.load offset=8 (local.get $o)) (local.get $t)))
                    (f64.mul (f64.load offset=16 (local.get $o)) (local.get $p1)))
                    (f64.mul (f64.load offset=48 (local.get $o)) (local.get $p2)))
                    (f64.mul (f64.load offset=40 (local.get $o)) (local.get $p3)))
                    (f64.mul (f64.load offset=32 (local.get $o)) (local.get $p4))))))
              (if (f64.ne (local.get $x) (f64.const 0))
                (then
                  (local.set $o (i32.add (local.get $ps) (local.get $d)))
                  (v128.store (local.get $o) (f64x2.add (v128.load (local.get $o))
                    (f64x2.mul (v128.load (i32.add (local.get $sd) (local.get $d))) (f64x2.splat (local.get $x)))))
                  (f64.store offset=16 (local.get $o) (f64.add (f64.load offset=16 (local.get $o))
                    (f64.mul (f64.load offset=16 (i32.add (local.get $sd) (local.get $d))) (local.get $x))))))))

          ;; Rotation: offset(axis, x) * pose rotation.
          (if (i32.and (local.get $m) (i32.const 2))
            (then
              (local.set $o (i32.add (local.get $rc) (local.get $c)))
              (local.set $x (f64.const 0))
              (if (f64.lt (local.get $t) (f64.load offset=24 (local.get $o)))
                (then
                  (local.set $x (f64.add (f64.add (f64.add (f64.add (f64.add (f64.load (local.get $o))
                    (f64.mul (f64.load offset=8 (local.get $o)) (local.get $t)))
                    (f64.mul (f64.load offset=16 (local.get $o)) (local.get $p1)))
                    (f64.mul (f64.load offset=48 (local.get $o)) (local.get $p2)))
                    (f64.mul (f64.load offset=40 (local.get $o)) (local.get $p3)))
                    (f64.mul (f64.load offset=32 (local.get $o)) (local.get $p4))))))
              (if (f64.ne (local.get $x) (f64.const 0))
                (then
                  (local.set $q (f64.mul (local.get $x) (f64.const 0.25)))
                  (if (i32.and (f64.ge (local.get $q) (f64.const -0x1.921fb54442d18p-1)) (f64.le (local.get $q) (f64.const 0x1.921fb54442d18p-1)))
                    (then
                      (local.set $z (f64.mul (local.get $q) (local.get $q)))
                      (local.set $z2 (f64.mul (local.get $z) (local.get $z)))
                      ;; sq = q + q z ((K1 + K2 z) + z2 (K3 + K4 z) + z2 z2 (K5 + K6 z))
                      (local.set $sq (f64.add (local.get $q) (f64.mul (f64.mul (local.get $q) (local.get $z))
                        (f64.add
                          (f64.add
                            (f64.add (f64.const -0x1.5555555555549p-3) (f64.mul (f64.const 0x1.111111110f8a6p-7) (local.get $z)))
                            (f64.mul (local.get $z2) (f64.add (f64.const -0x1.a01a019c161d5p-13) (f64.mul (f64.const 0x1.71de357b1fe7dp-19) (local.get $z)))))
                          (f64.mul (f64.mul (local.get $z2) (local.get $z2))
                            (f64.add (f64.const -0x1.ae5e68a2b9cebp-26) (f64.mul (f64.const 0x1.5d93a5acfd57cp-33) (local.get $z))))))))
                      ;; cq = 1 - z/2 + z2 ((L1 + L2 z) + z2 (L3 + L4 z) + z2 z2 (L5 + L6 z))
                      (local.set $cq (f64.add (f64.sub (f64.const 1) (f64.mul (f64.const 0.5) (local.get $z)))
                        (f64.mul (local.get $z2)
                          (f64.add
                            (f64.add
                              (f64.add (f64.const 0x1.555555555554cp-5) (f64.mul (f64.const -0x1.6c16c16c15177p-10) (local.get $z)))
                              (f64.mul (local.get $z2) (f64.add (f64.const 0x1.a01a019cb1590p-16) (f64.mul (f64.const -0x1.27e4f809c52adp-22) (local.get $z)))))
                            (f64.mul (f64.mul (local.get $z2) (local.get $z2))
                              (f64.add (f64.const 0x1.1ee9ebdb4b1c4p-29) (f64.mul (f64.const -0x1.8fae9be8838d4p-37) (local.get $z))))))))
                      (local.set $s (f64.mul (f64.mul (f64.const 2) (local.get $sq)) (local.get $cq)))
                      (local.set $w (f64.sub (f64.mul (local.get $cq) (local.get $cq)) (f64.mul (local.get $sq) (local.get $sq)))))
                    (else
                      (local.set $s (call $sin (f64.mul (f64.const 2) (local.get $q))))
                      (local.set $w (call $cos (f64.mul (f64.const 2) (local.get $q))))))
                  (local.set $o (i32.add (local.get $ra) (local.get $d)))
                  (local.set $ax (f64.mul (f64.load (local.get $o)) (local.get $s)))
                  (local.set $ay (f64.mul (f64.load offset=8 (local.get $o)) (local.get $s)))
                  (local.set $az (f64.mul (f64.load offset=16 (local.get $o)) (local.get $s)))
                  (local.set $o (i32.add (local.get $pr) (i32.shl (local.get $bone) (i32.const 5))))
                  (local.set $bx (f64.load (local.get $o)))
                  (local.set $by (f64.load offset=8 (local.get $o)))
                  (local.set $bz (f64.load offset=16 (local.get $o)))
                  (local.set $bw (f64.load offset=24 (local.get $o)))
                  (local.set $rx (f64.sub (f64.add (f64.add (f64.mul (local.get $w) (local.get $bx)) (f64.mul (local.get $ax) (local.get $bw)))
                    (f64.mul (local.get $ay) (local.get $bz))) (f64.mul (local.get $az) (local.get $by))))
                  (local.set $ry (f64.add (f64.add (f64.sub (f64.mul (local.get $w) (local.get $by)) (f64.mul (local.get $ax) (local.get $bz)))
                    (f64.mul (local.get $ay) (local.get $bw))) (f64.mul (local.get $az) (local.get $bx))))
                  (local.set $rz (f64.add (f64.sub (f64.add (f64.mul (local.get $w) (local.get $bz)) (f64.mul (local.get $ax) (local.get $by)))
                    (f64.mul (local.get $ay) (local.get $bx))) (f64.mul (local.get $az) (local.get $bw))))
                  (local.set $rw (f64.sub (f64.sub (f64.sub (f64.mul (local.get $w) (local.get $bw)) (f64.mul (local.get $ax) (local.get $bx)))
                    (f64.mul (local.get $ay) (local.get $by))) (f64.mul (local.get $az) (local.get $bz))))
                  (local.set $n2 (f64.add (f64.add (f64.add (f64.mul (local.get $rx) (local.get $rx)) (f64.mul (local.get $ry) (local.get $ry)))
                    (f64.mul (local.get $rz) (local.get $rz))) (f64.mul (local.get $rw) (local.get $rw))))
                  ;; Within 1e-8 of unit: one Newton step toward 1/sqrt (1.5 - n2/2); else the full normalisation.
                  (local.set $near (i32.and (f64.gt (local.get $n2) (f64.const 0x1.ffffffaa19c47p-1)) (f64.lt (local.get $n2) (f64.const 0x1.0000002af31dcp0))))
                  (if (local.get $near)
                    (then
                      (local.set $k (f64.sub (f64.const 1.5) (f64.mul (f64.const 0.5) (local.get $n2))))
                      (f64.store (local.get $o) (f64.mul (local.get $rx) (local.get $k)))
                      (f64.store offset=8 (local.get $o) (f64.mul (local.get $ry) (local.get $k)))
                      (f64.store offset=16 (local.get $o) (f64.mul (local.get $rz) (local.get $k)))
                      (f64.store offset=24 (local.get $o) (f64.mul (local.get $rw) (local.get $k))))
                    (else
                      ;; quatNormalize of (rx, ry, rz, rw): its squared length is n2 (the same sum).
                      (if (i32.or (i32.eqz (f64.gt (local.get $n2) (f64.const 1e-12)))
                            (f64.ne (f64.sub (local.get $n2) (local.get $n2)) (f64.const 0)))
                        (then
                          (f64.store (local.get $o) (f64.const 0))
                          (f64.store offset=8 (local.get $o) (f64.const 0))
                          (f64.store offset=16 (local.get $o) (f64.const 0))
                          (f64.store offset=24 (local.get $o) (f64.const 1)))
                        (else
                          (local.set $k (f64.div (f64.const 1) (f64.sqrt (local.get $n2))))
                          (f64.store (local.get $o) (f64.mul (local.get $rx) (local.get $k)))
                          (f64.store offset=8 (local.get $o) (f64.mul (local.get $ry) (local.get $k)))
                          (f64.store offset=16 (local.get $o) (f64.mul (local.get $rz) (local.get $k)))
                          (f64.store offset=24 (local.get $o) (f64.mul (local.get $rw) (local.get $k)))))))))))))
      (local.set $bone (i32.add (local.get $bone) (i32.const 1)))
      (br $bones))))
)
