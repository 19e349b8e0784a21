;; The skinning pass of animgraph/three (three/binding.ts, skinAffine): for each slot of a three.js
;; Skeleton bound to a graph bone, root world matrix × compose(component T, R, S) × inverse bind
;; matrix, in double precision, each element rounded once to single precision, written as the 16
;; floats of skeleton.boneMatrices (column-major). The same IEEE operations in the same order as the
;; JavaScript loop (a sum of three products is ((a + b) + c), then + the translation; no fused
;; multiply-add), so the two write the same floats. A matrix column is two f64x2 lanes: rows 0 and 1
;; in one, row 2 in the first lane of the other (its second lane is never written out).
;;
;; Hand-written in the text format; scripts/build-wasm.mjs assembles it (the `wabt` package) into
;; runtime/kernel/wasm/skinning-bytes.ts, and a test checks the two agree. All addresses are byte
;; offsets into the memory; f64 arrays are 8-byte aligned, the output 16-byte aligned.
(module
  (import "m" "memory" (memory 1))

  ;; Constants read into locals once per call, not consts in the loop (see CONTRIBUTING.md, "The
  ;; WebAssembly kernel and its JavaScript twin").
  (global $one (mut f64) (f64.const 1))
  (global $onef (mut f32) (f32.const 1))

  ;; n slots. slots: i32 per slot, its graph bone (-1: skipped, its floats left as they are).
  ;; t, r, s: the component pose (f64: 3, 4 and 3 per graph bone). inv: the inverse bind matrices
  ;; (16 f64 per slot, column-major, last row 0 0 0 1). root: the root's world matrix (16 f64,
  ;; column-major, affine). out: 16 f32 per slot.
  (func (export "skin") (param $n i32) (param $slots i32) (param $t i32) (param $r i32) (param $s i32)
    (param $inv i32) (param $root i32) (param $out i32)
    (local $i i32) (local $b i32) (local $p i32) (local $q i32) (local $o i32)
    (local $one f64) (local $onef f32)
    (local $x f64) (local $y f64) (local $z f64) (local $w f64)
    (local $x2 f64) (local $y2 f64) (local $z2 f64)
    (local $xx f64) (local $xy f64) (local $xz f64) (local $yy f64) (local $yz f64) (local $zz f64)
    (local $wx f64) (local $wy f64) (local $wz f64)
    (local $sx f64) (local $sy f64) (local $sz f64)
    ;; The root's columns: rows 0-1 (m01...), row 2 (m2...).
    (local $m01 v128) (local $m2 v128) (local $m45 v128) (local $m6 v128)
    (local $m89 v128) (local $m10 v128) (local $m1213 v128) (local $m14 v128)
    ;; The bone's world matrix's columns, the same way.
    (local $a01 v128) (local $a2 v128) (local $a45 v128) (local $a6 v128)
    (local $a89 v128) (local $a10 v128) (local $a1213 v128) (local $a14 v128)
    (local $c0 v128) (local $c1 v128) (local $c2 v128)
    (local $lo v128) (local $hi v128)
    (local.set $one (global.get $one))
    (local.set $onef (global.get $onef))
    (local.set $m01 (v128.load (local.get $root)))
    (local.set $m2 (v128.load64_zero offset=16 (local.get $root)))
    (local.set $m45 (v128.load offset=32 (local.get $root)))
    (local.set $m6 (v128.load64_zero offset=48 (local.get $root)))
    (local.set $m89 (v128.load offset=64 (local.get $root)))
    (local.set $m10 (v128.load64_zero offset=80 (local.get $root)))
    (local.set $m1213 (v128.load offset=96 (local.get $root)))
    (local.set $m14 (v128.load64_zero offset=112 (local.get $root)))
    (block $done
      (loop $slot
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $b (i32.load (i32.add (local.get $slots) (i32.shl (local.get $i) (i32.const 2)))))
        (if (i32.ge_s (local.get $b) (i32.const 0))
          (then
            (local.set $q (i32.add (local.get $r) (i32.shl (local.get $b) (i32.const 5))))
            (local.set $p (i32.mul (local.get $b) (i32.const 24)))
            (local.set $x (f64.load (local.get $q)))
            (local.set $y (f64.load offset=8 (local.get $q)))
            (local.set $z (f64.load offset=16 (local.get $q)))
            (local.set $w (f64.load offset=24 (local.get $q)))
            (local.set $x2 (f64.add (local.get $x) (local.get $x)))
            (local.set $y2 (f64.add (local.get $y) (local.get $y)))
            (local.set $z2 (f64.add (local.get $z) (local.get $z)))
            (local.set $xx (f64.mul (local.get $x) (local.get $x2)))
            (local.set $xy (f64.mul (local.get $x) (local.get $y2)))
            (local.set $xz (f64.mul (local.get $x) (local.get $z2)))
            (local.set $yy (f64.mul (local.get $y) (local.get $y2)))
            (local.set $yz (f64.mul (local.get $y) (local.get $z2)))
            (local.set $zz (f64.mul (local.get $z) (local.get $z2)))
            (local.set $wx (f64.mul (local.get $w) (local.get $x2)))
            (local.set $wy (f64.mul (local.get $w) (local.get $y2)))
            (local.set $wz (f64.mul (local.get $w) (local.get $z2)))
            (local.set $sx (f64.load (i32.add (local.get $s) (local.get $p))))
            (local.set $sy (f64.load offset=8 (i32.add (local.get $s) (local.get $p))))
            (local.set $sz (f64.load offset=16 (i32.add (local.get $s) (local.get $p))))
            ;; Column 0 of compose(T, R, S): c0 c1 c2, then the world column m × it.
            (local.set $c0 (f64x2.splat (f64.mul (f64.sub (local.get $one) (f64.add (local.get $yy) (local.get $zz))) (local.get $sx))))
            (local.set $c1 (f64x2.splat (f64.mul (f64.add (local.get $xy) (local.get $wz)) (local.get $sx))))
            (local.set $c2 (f64x2.splat (f64.mul (f64.sub (local.get $xz) (local.get $wy)) (local.get $sx))))
            (local.set $a01 (f64x2.add (f64x2.add (f64x2.mul (local.get $m01) (local.get $c0)) (f64x2.mul (local.get $m45) (local.get $c1))) (f64x2.mul (local.get $m89) (local.get $c2))))
            (local.set $a2 (f64x2.add (f64x2.add (f64x2.mul (local.get $m2) (local.get $c0)) (f64x2.mul (local.get $m6) (local.get $c1))) (f64x2.mul (local.get $m10) (local.get $c2))))
            ;; Column 1: c4 c5 c6.
            (local.set $c0 (f64x2.splat (f64.mul (f64.sub (local.get $xy) (local.get $wz)) (local.get $sy))))
            (local.set $c1 (f64x2.splat (f64.mul (f64.sub (local.get $one) (f64.add (local.get $xx) (local.get $zz))) (local.get $sy))))
            (local.set $c2 (f64x2.splat (f64.mul (f64.add (local.get $yz) (local.get $wx)) (local.get $sy))))
            (local.set $a45 (f64x2.add (f64x2.add (f64x2.mul (local.get $m01) (local.get $c0)) (f64x2.mul (local.get $m45) (local.get $c1))) (f64x2.mul (local.get $m89) (local.get $c2))))
            (local.set $a6 (f64x2.add (f64x2.add (f64x2.mul (local.get $m2) (local.get $c0)) (f64x2.mul (local.get $m6) (local.get $c1))) (f64x2.mul (local.get $m10) (local.get $c2))))
            ;; Column 2: c8 c9 c10.
            (local.set $c0 (f64x2.splat (f64.mul (f64.add (local.get $xz) (local.get $wy)) (local.get $sz))))
            (local.set $c1 (f64x2.splat (f64.mul (f64.sub (local.get $yz) (local.get $wx)) (local.get $sz))))
            (local.set $c2 (f64x2.splat (f64.mul (f64.sub (local.get $one) (f64.add (local.get $xx) (local.get $yy))) (local.get $sz))))
            (local.set $a89 (f64x2.add (f64x2.add (f64x2.mul (local.get $m01) (local.get $c0)) (f64x2.mul (local.get $m45) (local.get $c1))) (f64x2.mul (local.get $m89) (local.get $c2))))
            (local.set $a10 (f64x2.add (f64x2.add (f64x2.mul (local.get $m2) (local.get $c0)) (f64x2.mul (local.get $m6) (local.get $c1))) (f64x2.mul (local.get $m10) (local.get $c2))))
            ;; Column 3: the translation c12 c13 c14, plus the root's.
            (local.set $p (i32.add (local.get $t) (local.get $p)))
            (local.set $c0 (v128.load64_splat (local.get $p)))
            (local.set $c1 (v128.load64_splat offset=8 (local.get $p)))
            (local.set $c2 (v128.load64_splat offset=16 (local.get $p)))
            (local.set $a1213 (f64x2.add (f64x2.add (f64x2.add (f64x2.mul (local.get $m01) (local.get $c0)) (f64x2.mul (local.get $m45) (local.get $c1))) (f64x2.mul (local.get $m89) (local.get $c2))) (local.get $m1213)))
            (local.set $a14 (f64x2.add (f64x2.add (f64x2.add (f64x2.mul (local.get $m2) (local.get $c0)) (f64x2.mul (local.get $m6) (local.get $c1))) (f64x2.mul (local.get $m10) (local.get $c2))) (local.get $m14)))
            ;; × the inverse bind matrix, column by column: out column j = a × (q0, q1, q2) (+ a's
            ;; translation for j = 3), its four floats stored together (row 3: 0, or 1 for j = 3).
            (local.set $q (i32.add (local.get $inv) (i32.shl (local.get $i) (i32.const 7))))
            (local.set $o (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 6))))
            ;; column 0
            (local.set $c0 (v128.load64_splat (local.get $q)))
            (local.set $c1 (v128.load64_splat offset=8 (local.get $q)))
            (local.set $c2 (v128.load64_splat offset=16 (local.get $q)))
            (local.set $lo (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a01) (local.get $c0)) (f64x2.mul (local.get $a45) (local.get $c1))) (f64x2.mul (local.get $a89) (local.get $c2)))))
            (local.set $hi (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a2) (local.get $c0)) (f64x2.mul (local.get $a6) (local.get $c1))) (f64x2.mul (local.get $a10) (local.get $c2)))))
            (v128.store (local.get $o) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 24 25 26 27 (local.get $lo) (local.get $hi)))
            ;; column 1
            (local.set $c0 (v128.load64_splat offset=32 (local.get $q)))
            (local.set $c1 (v128.load64_splat offset=40 (local.get $q)))
            (local.set $c2 (v128.load64_splat offset=48 (local.get $q)))
            (local.set $lo (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a01) (local.get $c0)) (f64x2.mul (local.get $a45) (local.get $c1))) (f64x2.mul (local.get $a89) (local.get $c2)))))
            (local.set $hi (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a2) (local.get $c0)) (f64x2.mul (local.get $a6) (local.get $c1))) (f64x2.mul (local.get $a10) (local.get $c2)))))
            (v128.store offset=16 (local.get $o) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 24 25 26 27 (local.get $lo) (local.get $hi)))
            ;; column 2
            (local.set $c0 (v128.load64_splat offset=64 (local.get $q)))
            (local.set $c1 (v128.load64_splat offset=72 (local.get $q)))
            (local.set $c2 (v128.load64_splat offset=80 (local.get $q)))
            (local.set $lo (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a01) (local.get $c0)) (f64x2.mul (local.get $a45) (local.get $c1))) (f64x2.mul (local.get $a89) (local.get $c2)))))
            (local.set $hi (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.mul (local.get $a2) (local.get $c0)) (f64x2.mul (local.get $a6) (local.get $c1))) (f64x2.mul (local.get $a10) (local.get $c2)))))
            (v128.store offset=32 (local.get $o) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 24 25 26 27 (local.get $lo) (local.get $hi)))
            ;; column 3
            (local.set $c0 (v128.load64_splat offset=96 (local.get $q)))
            (local.set $c1 (v128.load64_splat offset=104 (local.get $q)))
            (local.set $c2 (v128.load64_splat offset=112 (local.get $q)))
            (local.set $lo (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.add (f64x2.mul (local.get $a01) (local.get $c0)) (f64x2.mul (local.get $a45) (local.get $c1))) (f64x2.mul (local.get $a89) (local.get $c2))) (local.get $a1213))))
            (local.set $hi (f32x4.demote_f64x2_zero (f64x2.add (f64x2.add (f64x2.add (f64x2.mul (local.get $a2) (local.get $c0)) (f64x2.mul (local.get $a6) (local.get $c1))) (f64x2.mul (local.get $a10) (local.get $c2))) (local.get $a14))))
            (v128.store offset=48 (local.get $o)
              (f32x4.replace_lane 3 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 24 25 26 27 (local.get $lo) (local.get $hi)) (local.get $onef)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $slot))))
)
