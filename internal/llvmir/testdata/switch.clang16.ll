; ModuleID = 'examples/switch.c'
source_filename = "examples/switch.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [4 x i8] c"%d\0A\00", align 1, !dbg !0

; Function Attrs: nounwind uwtable
define dso_local i32 @main() #0 !dbg !16 {
entry:
  %retval = alloca i32, align 4
  %s = alloca i32, align 4
  %i = alloca i32, align 4
  store i32 0, ptr %retval, align 4
  call void @llvm.lifetime.start.p0(i64 4, ptr %s) #4, !dbg !24
  call void @llvm.dbg.declare(metadata ptr %s, metadata !21, metadata !DIExpression()), !dbg !25
  store i32 0, ptr %s, align 4, !dbg !25, !tbaa !26
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #4, !dbg !30
  call void @llvm.dbg.declare(metadata ptr %i, metadata !22, metadata !DIExpression()), !dbg !31
  store i32 0, ptr %i, align 4, !dbg !31, !tbaa !26
  br label %for.cond, !dbg !30

for.cond:                                         ; preds = %for.inc, %entry
  %0 = load i32, ptr %i, align 4, !dbg !32, !tbaa !26
  %cmp = icmp slt i32 %0, 20, !dbg !34
  br i1 %cmp, label %for.body, label %for.cond.cleanup, !dbg !35

for.cond.cleanup:                                 ; preds = %for.cond
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #4, !dbg !36
  br label %for.end

for.body:                                         ; preds = %for.cond
  %1 = load i32, ptr %i, align 4, !dbg !37, !tbaa !26
  %call = call i32 @classify(i32 noundef %1), !dbg !38
  %2 = load i32, ptr %s, align 4, !dbg !39, !tbaa !26
  %add = add nsw i32 %2, %call, !dbg !39
  store i32 %add, ptr %s, align 4, !dbg !39, !tbaa !26
  br label %for.inc, !dbg !40

for.inc:                                          ; preds = %for.body
  %3 = load i32, ptr %i, align 4, !dbg !41, !tbaa !26
  %inc = add nsw i32 %3, 1, !dbg !41
  store i32 %inc, ptr %i, align 4, !dbg !41, !tbaa !26
  br label %for.cond, !dbg !36, !llvm.loop !42

for.end:                                          ; preds = %for.cond.cleanup
  %4 = load i32, ptr %s, align 4, !dbg !45, !tbaa !26
  %call1 = call i32 (ptr, ...) @printf(ptr noundef @.str, i32 noundef %4), !dbg !46
  call void @llvm.lifetime.end.p0(i64 4, ptr %s) #4, !dbg !47
  ret i32 0, !dbg !48
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare void @llvm.dbg.declare(metadata, metadata, metadata) #2

; Function Attrs: nounwind uwtable
define internal i32 @classify(i32 noundef %x) #0 !dbg !49 {
entry:
  %x.addr = alloca i32, align 4
  %r = alloca i32, align 4
  store i32 %x, ptr %x.addr, align 4, !tbaa !26
  call void @llvm.dbg.declare(metadata ptr %x.addr, metadata !53, metadata !DIExpression()), !dbg !55
  call void @llvm.lifetime.start.p0(i64 4, ptr %r) #4, !dbg !56
  call void @llvm.dbg.declare(metadata ptr %r, metadata !54, metadata !DIExpression()), !dbg !57
  store i32 0, ptr %r, align 4, !dbg !57, !tbaa !26
  %0 = load i32, ptr %x.addr, align 4, !dbg !58, !tbaa !26
  %rem = srem i32 %0, 6, !dbg !59
  switch i32 %rem, label %sw.default [
    i32 0, label %sw.bb
    i32 1, label %sw.bb1
    i32 2, label %sw.bb3
    i32 3, label %sw.bb3
  ], !dbg !60

sw.bb:                                            ; preds = %entry
  %1 = load i32, ptr %r, align 4, !dbg !61, !tbaa !26
  %add = add nsw i32 %1, 100, !dbg !61
  store i32 %add, ptr %r, align 4, !dbg !61, !tbaa !26
  br label %sw.bb1, !dbg !63

sw.bb1:                                           ; preds = %entry, %sw.bb
  %2 = load i32, ptr %r, align 4, !dbg !64, !tbaa !26
  %add2 = add nsw i32 %2, 10, !dbg !64
  store i32 %add2, ptr %r, align 4, !dbg !64, !tbaa !26
  br label %sw.epilog, !dbg !65

sw.bb3:                                           ; preds = %entry, %entry
  %3 = load i32, ptr %r, align 4, !dbg !66, !tbaa !26
  %add4 = add nsw i32 %3, 1, !dbg !66
  store i32 %add4, ptr %r, align 4, !dbg !66, !tbaa !26
  br label %sw.epilog, !dbg !67

sw.default:                                       ; preds = %entry
  store i32 -1, ptr %r, align 4, !dbg !68, !tbaa !26
  br label %sw.epilog, !dbg !69

sw.epilog:                                        ; preds = %sw.default, %sw.bb3, %sw.bb1
  %4 = load i32, ptr %r, align 4, !dbg !70, !tbaa !26
  call void @llvm.lifetime.end.p0(i64 4, ptr %r) #4, !dbg !71
  ret i32 %4, !dbg !72
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

declare !dbg !73 i32 @printf(ptr noundef, ...) #3

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind }

!llvm.dbg.cu = !{!7}
!llvm.module.flags = !{!9, !10, !11, !12, !13, !14}
!llvm.ident = !{!15}

!0 = !DIGlobalVariableExpression(var: !1, expr: !DIExpression())
!1 = distinct !DIGlobalVariable(scope: null, file: !2, line: 27, type: !3, isLocal: true, isDefinition: true)
!2 = !DIFile(filename: "examples/switch.c", directory: "/src", checksumkind: CSK_MD5, checksum: "5d8bf9eb4cacce0435d0cbb6671ea559")
!3 = !DICompositeType(tag: DW_TAG_array_type, baseType: !4, size: 32, elements: !5)
!4 = !DIBasicType(name: "char", size: 8, encoding: DW_ATE_signed_char)
!5 = !{!6}
!6 = !DISubrange(count: 4)
!7 = distinct !DICompileUnit(language: DW_LANG_C11, file: !2, producer: "Debian clang version 16.0.6 (15~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, globals: !8, splitDebugInlining: false, nameTableKind: None)
!8 = !{!0}
!9 = !{i32 7, !"Dwarf Version", i32 5}
!10 = !{i32 2, !"Debug Info Version", i32 3}
!11 = !{i32 1, !"wchar_size", i32 4}
!12 = !{i32 8, !"PIC Level", i32 2}
!13 = !{i32 7, !"PIE Level", i32 2}
!14 = !{i32 7, !"uwtable", i32 2}
!15 = !{!"Debian clang version 16.0.6 (15~deb12u1)"}
!16 = distinct !DISubprogram(name: "main", scope: !2, file: !2, line: 23, type: !17, scopeLine: 23, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !7, retainedNodes: !20)
!17 = !DISubroutineType(types: !18)
!18 = !{!19}
!19 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!20 = !{!21, !22}
!21 = !DILocalVariable(name: "s", scope: !16, file: !2, line: 24, type: !19)
!22 = !DILocalVariable(name: "i", scope: !23, file: !2, line: 25, type: !19)
!23 = distinct !DILexicalBlock(scope: !16, file: !2, line: 25, column: 3)
!24 = !DILocation(line: 24, column: 3, scope: !16)
!25 = !DILocation(line: 24, column: 7, scope: !16)
!26 = !{!27, !27, i64 0}
!27 = !{!"int", !28, i64 0}
!28 = !{!"omnipotent char", !29, i64 0}
!29 = !{!"Simple C/C++ TBAA"}
!30 = !DILocation(line: 25, column: 8, scope: !23)
!31 = !DILocation(line: 25, column: 12, scope: !23)
!32 = !DILocation(line: 25, column: 19, scope: !33)
!33 = distinct !DILexicalBlock(scope: !23, file: !2, line: 25, column: 3)
!34 = !DILocation(line: 25, column: 21, scope: !33)
!35 = !DILocation(line: 25, column: 3, scope: !23)
!36 = !DILocation(line: 25, column: 3, scope: !33)
!37 = !DILocation(line: 26, column: 19, scope: !33)
!38 = !DILocation(line: 26, column: 10, scope: !33)
!39 = !DILocation(line: 26, column: 7, scope: !33)
!40 = !DILocation(line: 26, column: 5, scope: !33)
!41 = !DILocation(line: 25, column: 28, scope: !33)
!42 = distinct !{!42, !35, !43, !44}
!43 = !DILocation(line: 26, column: 20, scope: !23)
!44 = !{!"llvm.loop.mustprogress"}
!45 = !DILocation(line: 27, column: 18, scope: !16)
!46 = !DILocation(line: 27, column: 3, scope: !16)
!47 = !DILocation(line: 29, column: 1, scope: !16)
!48 = !DILocation(line: 28, column: 3, scope: !16)
!49 = distinct !DISubprogram(name: "classify", scope: !2, file: !2, line: 4, type: !50, scopeLine: 4, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !7, retainedNodes: !52)
!50 = !DISubroutineType(types: !51)
!51 = !{!19, !19}
!52 = !{!53, !54}
!53 = !DILocalVariable(name: "x", arg: 1, scope: !49, file: !2, line: 4, type: !19)
!54 = !DILocalVariable(name: "r", scope: !49, file: !2, line: 5, type: !19)
!55 = !DILocation(line: 4, column: 25, scope: !49)
!56 = !DILocation(line: 5, column: 3, scope: !49)
!57 = !DILocation(line: 5, column: 7, scope: !49)
!58 = !DILocation(line: 6, column: 11, scope: !49)
!59 = !DILocation(line: 6, column: 13, scope: !49)
!60 = !DILocation(line: 6, column: 3, scope: !49)
!61 = !DILocation(line: 8, column: 7, scope: !62)
!62 = distinct !DILexicalBlock(scope: !49, file: !2, line: 6, column: 18)
!63 = !DILocation(line: 8, column: 5, scope: !62)
!64 = !DILocation(line: 11, column: 7, scope: !62)
!65 = !DILocation(line: 12, column: 5, scope: !62)
!66 = !DILocation(line: 15, column: 7, scope: !62)
!67 = !DILocation(line: 16, column: 5, scope: !62)
!68 = !DILocation(line: 18, column: 7, scope: !62)
!69 = !DILocation(line: 19, column: 3, scope: !62)
!70 = !DILocation(line: 20, column: 10, scope: !49)
!71 = !DILocation(line: 21, column: 1, scope: !49)
!72 = !DILocation(line: 20, column: 3, scope: !49)
!73 = !DISubprogram(name: "printf", scope: !74, file: !74, line: 356, type: !75, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized, retainedNodes: !80)
!74 = !DIFile(filename: "/usr/include/stdio.h", directory: "", checksumkind: CSK_MD5, checksum: "b5a90985555f47bfb88eff5a8f0f5b72")
!75 = !DISubroutineType(types: !76)
!76 = !{!19, !77, null}
!77 = !DIDerivedType(tag: DW_TAG_restrict_type, baseType: !78)
!78 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !79, size: 64)
!79 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !4)
!80 = !{}
