; ModuleID = 'examples/branches.c'
source_filename = "examples/branches.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [16 x i8] c"%d %d %d %d %d\0A\00", align 1, !dbg !0

; Function Attrs: nounwind uwtable
define dso_local i32 @main() #0 !dbg !16 {
entry:
  %retval = alloca i32, align 4
  %evens = alloca i32, align 4
  %odds = alloca i32, align 4
  %both = alloca i32, align 4
  %either = alloca i32, align 4
  %big = alloca i32, align 4
  %i = alloca i32, align 4
  store i32 0, ptr %retval, align 4
  call void @llvm.lifetime.start.p0(i64 4, ptr %evens) #4, !dbg !28
  call void @llvm.dbg.declare(metadata ptr %evens, metadata !21, metadata !DIExpression()), !dbg !29
  store i32 0, ptr %evens, align 4, !dbg !29, !tbaa !30
  call void @llvm.lifetime.start.p0(i64 4, ptr %odds) #4, !dbg !28
  call void @llvm.dbg.declare(metadata ptr %odds, metadata !22, metadata !DIExpression()), !dbg !34
  store i32 0, ptr %odds, align 4, !dbg !34, !tbaa !30
  call void @llvm.lifetime.start.p0(i64 4, ptr %both) #4, !dbg !28
  call void @llvm.dbg.declare(metadata ptr %both, metadata !23, metadata !DIExpression()), !dbg !35
  store i32 0, ptr %both, align 4, !dbg !35, !tbaa !30
  call void @llvm.lifetime.start.p0(i64 4, ptr %either) #4, !dbg !28
  call void @llvm.dbg.declare(metadata ptr %either, metadata !24, metadata !DIExpression()), !dbg !36
  store i32 0, ptr %either, align 4, !dbg !36, !tbaa !30
  call void @llvm.lifetime.start.p0(i64 4, ptr %big) #4, !dbg !28
  call void @llvm.dbg.declare(metadata ptr %big, metadata !25, metadata !DIExpression()), !dbg !37
  store i32 0, ptr %big, align 4, !dbg !37, !tbaa !30
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #4, !dbg !38
  call void @llvm.dbg.declare(metadata ptr %i, metadata !26, metadata !DIExpression()), !dbg !39
  store i32 0, ptr %i, align 4, !dbg !39, !tbaa !30
  br label %for.cond, !dbg !38

for.cond:                                         ; preds = %for.inc, %entry
  %0 = load i32, ptr %i, align 4, !dbg !40, !tbaa !30
  %cmp = icmp slt i32 %0, 100, !dbg !42
  br i1 %cmp, label %for.body, label %for.cond.cleanup, !dbg !43

for.cond.cleanup:                                 ; preds = %for.cond
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #4, !dbg !44
  br label %for.end

for.body:                                         ; preds = %for.cond
  %1 = load i32, ptr %i, align 4, !dbg !45, !tbaa !30
  %rem = srem i32 %1, 2, !dbg !48
  %cmp1 = icmp eq i32 %rem, 0, !dbg !49
  br i1 %cmp1, label %if.then, label %if.else, !dbg !50

if.then:                                          ; preds = %for.body
  %2 = load i32, ptr %evens, align 4, !dbg !51, !tbaa !30
  %inc = add nsw i32 %2, 1, !dbg !51
  store i32 %inc, ptr %evens, align 4, !dbg !51, !tbaa !30
  br label %if.end, !dbg !53

if.else:                                          ; preds = %for.body
  %3 = load i32, ptr %odds, align 4, !dbg !54, !tbaa !30
  %inc2 = add nsw i32 %3, 1, !dbg !54
  store i32 %inc2, ptr %odds, align 4, !dbg !54, !tbaa !30
  br label %if.end

if.end:                                           ; preds = %if.else, %if.then
  %4 = load i32, ptr %i, align 4, !dbg !56, !tbaa !30
  %rem3 = srem i32 %4, 3, !dbg !58
  %cmp4 = icmp eq i32 %rem3, 0, !dbg !59
  br i1 %cmp4, label %land.lhs.true, label %if.end9, !dbg !60

land.lhs.true:                                    ; preds = %if.end
  %5 = load i32, ptr %i, align 4, !dbg !61, !tbaa !30
  %rem5 = srem i32 %5, 5, !dbg !62
  %cmp6 = icmp eq i32 %rem5, 0, !dbg !63
  br i1 %cmp6, label %if.then7, label %if.end9, !dbg !64

if.then7:                                         ; preds = %land.lhs.true
  %6 = load i32, ptr %both, align 4, !dbg !65, !tbaa !30
  %inc8 = add nsw i32 %6, 1, !dbg !65
  store i32 %inc8, ptr %both, align 4, !dbg !65, !tbaa !30
  br label %if.end9, !dbg !66

if.end9:                                          ; preds = %if.then7, %land.lhs.true, %if.end
  %7 = load i32, ptr %i, align 4, !dbg !67, !tbaa !30
  %rem10 = srem i32 %7, 3, !dbg !69
  %cmp11 = icmp eq i32 %rem10, 0, !dbg !70
  br i1 %cmp11, label %if.then14, label %lor.lhs.false, !dbg !71

lor.lhs.false:                                    ; preds = %if.end9
  %8 = load i32, ptr %i, align 4, !dbg !72, !tbaa !30
  %rem12 = srem i32 %8, 5, !dbg !73
  %cmp13 = icmp eq i32 %rem12, 0, !dbg !74
  br i1 %cmp13, label %if.then14, label %if.end16, !dbg !75

if.then14:                                        ; preds = %lor.lhs.false, %if.end9
  %9 = load i32, ptr %either, align 4, !dbg !76, !tbaa !30
  %inc15 = add nsw i32 %9, 1, !dbg !76
  store i32 %inc15, ptr %either, align 4, !dbg !76, !tbaa !30
  br label %if.end16, !dbg !77

if.end16:                                         ; preds = %if.then14, %lor.lhs.false
  %10 = load i32, ptr %i, align 4, !dbg !78, !tbaa !30
  %cmp17 = icmp sgt i32 %10, 90, !dbg !79
  br i1 %cmp17, label %cond.true, label %cond.false, !dbg !78

cond.true:                                        ; preds = %if.end16
  %11 = load i32, ptr %i, align 4, !dbg !80, !tbaa !30
  %call = call i32 @weight(i32 noundef %11), !dbg !81
  br label %cond.end, !dbg !78

cond.false:                                       ; preds = %if.end16
  %12 = load i32, ptr %i, align 4, !dbg !82, !tbaa !30
  %call18 = call i32 @weight(i32 noundef %12), !dbg !83
  %sub = sub nsw i32 0, %call18, !dbg !84
  br label %cond.end, !dbg !78

cond.end:                                         ; preds = %cond.false, %cond.true
  %cond = phi i32 [ %call, %cond.true ], [ %sub, %cond.false ], !dbg !78
  %13 = load i32, ptr %big, align 4, !dbg !85, !tbaa !30
  %add = add nsw i32 %13, %cond, !dbg !85
  store i32 %add, ptr %big, align 4, !dbg !85, !tbaa !30
  br label %for.inc, !dbg !86

for.inc:                                          ; preds = %cond.end
  %14 = load i32, ptr %i, align 4, !dbg !87, !tbaa !30
  %inc19 = add nsw i32 %14, 1, !dbg !87
  store i32 %inc19, ptr %i, align 4, !dbg !87, !tbaa !30
  br label %for.cond, !dbg !44, !llvm.loop !88

for.end:                                          ; preds = %for.cond.cleanup
  %15 = load i32, ptr %evens, align 4, !dbg !91, !tbaa !30
  %16 = load i32, ptr %odds, align 4, !dbg !92, !tbaa !30
  %17 = load i32, ptr %both, align 4, !dbg !93, !tbaa !30
  %18 = load i32, ptr %either, align 4, !dbg !94, !tbaa !30
  %19 = load i32, ptr %big, align 4, !dbg !95, !tbaa !30
  %call20 = call i32 (ptr, ...) @printf(ptr noundef @.str, i32 noundef %15, i32 noundef %16, i32 noundef %17, i32 noundef %18, i32 noundef %19), !dbg !96
  call void @llvm.lifetime.end.p0(i64 4, ptr %big) #4, !dbg !97
  call void @llvm.lifetime.end.p0(i64 4, ptr %either) #4, !dbg !97
  call void @llvm.lifetime.end.p0(i64 4, ptr %both) #4, !dbg !97
  call void @llvm.lifetime.end.p0(i64 4, ptr %odds) #4, !dbg !97
  call void @llvm.lifetime.end.p0(i64 4, ptr %evens) #4, !dbg !97
  ret i32 0, !dbg !98
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare void @llvm.dbg.declare(metadata, metadata, metadata) #2

; Function Attrs: nounwind uwtable
define internal i32 @weight(i32 noundef %i) #0 !dbg !99 {
entry:
  %i.addr = alloca i32, align 4
  store i32 %i, ptr %i.addr, align 4, !tbaa !30
  call void @llvm.dbg.declare(metadata ptr %i.addr, metadata !103, metadata !DIExpression()), !dbg !104
  %0 = load i32, ptr %i.addr, align 4, !dbg !105, !tbaa !30
  %rem = srem i32 %0, 7, !dbg !106
  ret i32 %rem, !dbg !107
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

declare !dbg !108 i32 @printf(ptr noundef, ...) #3

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind }

!llvm.dbg.cu = !{!7}
!llvm.module.flags = !{!9, !10, !11, !12, !13, !14}
!llvm.ident = !{!15}

!0 = !DIGlobalVariableExpression(var: !1, expr: !DIExpression())
!1 = distinct !DIGlobalVariable(scope: null, file: !2, line: 22, type: !3, isLocal: true, isDefinition: true)
!2 = !DIFile(filename: "examples/branches.c", directory: "/src", checksumkind: CSK_MD5, checksum: "4483d70d055c93b7732892c5ce136273")
!3 = !DICompositeType(tag: DW_TAG_array_type, baseType: !4, size: 128, elements: !5)
!4 = !DIBasicType(name: "char", size: 8, encoding: DW_ATE_signed_char)
!5 = !{!6}
!6 = !DISubrange(count: 16)
!7 = distinct !DICompileUnit(language: DW_LANG_C11, file: !2, producer: "Debian clang version 16.0.6 (15~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, globals: !8, splitDebugInlining: false, nameTableKind: None)
!8 = !{!0}
!9 = !{i32 7, !"Dwarf Version", i32 5}
!10 = !{i32 2, !"Debug Info Version", i32 3}
!11 = !{i32 1, !"wchar_size", i32 4}
!12 = !{i32 8, !"PIC Level", i32 2}
!13 = !{i32 7, !"PIE Level", i32 2}
!14 = !{i32 7, !"uwtable", i32 2}
!15 = !{!"Debian clang version 16.0.6 (15~deb12u1)"}
!16 = distinct !DISubprogram(name: "main", scope: !2, file: !2, line: 6, type: !17, scopeLine: 6, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !7, retainedNodes: !20)
!17 = !DISubroutineType(types: !18)
!18 = !{!19}
!19 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!20 = !{!21, !22, !23, !24, !25, !26}
!21 = !DILocalVariable(name: "evens", scope: !16, file: !2, line: 7, type: !19)
!22 = !DILocalVariable(name: "odds", scope: !16, file: !2, line: 7, type: !19)
!23 = !DILocalVariable(name: "both", scope: !16, file: !2, line: 7, type: !19)
!24 = !DILocalVariable(name: "either", scope: !16, file: !2, line: 7, type: !19)
!25 = !DILocalVariable(name: "big", scope: !16, file: !2, line: 7, type: !19)
!26 = !DILocalVariable(name: "i", scope: !27, file: !2, line: 8, type: !19)
!27 = distinct !DILexicalBlock(scope: !16, file: !2, line: 8, column: 3)
!28 = !DILocation(line: 7, column: 3, scope: !16)
!29 = !DILocation(line: 7, column: 7, scope: !16)
!30 = !{!31, !31, i64 0}
!31 = !{!"int", !32, i64 0}
!32 = !{!"omnipotent char", !33, i64 0}
!33 = !{!"Simple C/C++ TBAA"}
!34 = !DILocation(line: 7, column: 18, scope: !16)
!35 = !DILocation(line: 7, column: 28, scope: !16)
!36 = !DILocation(line: 7, column: 38, scope: !16)
!37 = !DILocation(line: 7, column: 50, scope: !16)
!38 = !DILocation(line: 8, column: 8, scope: !27)
!39 = !DILocation(line: 8, column: 12, scope: !27)
!40 = !DILocation(line: 8, column: 19, scope: !41)
!41 = distinct !DILexicalBlock(scope: !27, file: !2, line: 8, column: 3)
!42 = !DILocation(line: 8, column: 21, scope: !41)
!43 = !DILocation(line: 8, column: 3, scope: !27)
!44 = !DILocation(line: 8, column: 3, scope: !41)
!45 = !DILocation(line: 9, column: 9, scope: !46)
!46 = distinct !DILexicalBlock(scope: !47, file: !2, line: 9, column: 9)
!47 = distinct !DILexicalBlock(scope: !41, file: !2, line: 8, column: 33)
!48 = !DILocation(line: 9, column: 11, scope: !46)
!49 = !DILocation(line: 9, column: 15, scope: !46)
!50 = !DILocation(line: 9, column: 9, scope: !47)
!51 = !DILocation(line: 10, column: 12, scope: !52)
!52 = distinct !DILexicalBlock(scope: !46, file: !2, line: 9, column: 21)
!53 = !DILocation(line: 11, column: 5, scope: !52)
!54 = !DILocation(line: 12, column: 11, scope: !55)
!55 = distinct !DILexicalBlock(scope: !46, file: !2, line: 11, column: 12)
!56 = !DILocation(line: 14, column: 9, scope: !57)
!57 = distinct !DILexicalBlock(scope: !47, file: !2, line: 14, column: 9)
!58 = !DILocation(line: 14, column: 11, scope: !57)
!59 = !DILocation(line: 14, column: 15, scope: !57)
!60 = !DILocation(line: 14, column: 20, scope: !57)
!61 = !DILocation(line: 14, column: 23, scope: !57)
!62 = !DILocation(line: 14, column: 25, scope: !57)
!63 = !DILocation(line: 14, column: 29, scope: !57)
!64 = !DILocation(line: 14, column: 9, scope: !47)
!65 = !DILocation(line: 15, column: 11, scope: !57)
!66 = !DILocation(line: 15, column: 7, scope: !57)
!67 = !DILocation(line: 16, column: 9, scope: !68)
!68 = distinct !DILexicalBlock(scope: !47, file: !2, line: 16, column: 9)
!69 = !DILocation(line: 16, column: 11, scope: !68)
!70 = !DILocation(line: 16, column: 15, scope: !68)
!71 = !DILocation(line: 16, column: 20, scope: !68)
!72 = !DILocation(line: 16, column: 23, scope: !68)
!73 = !DILocation(line: 16, column: 25, scope: !68)
!74 = !DILocation(line: 16, column: 29, scope: !68)
!75 = !DILocation(line: 16, column: 9, scope: !47)
!76 = !DILocation(line: 17, column: 13, scope: !68)
!77 = !DILocation(line: 17, column: 7, scope: !68)
!78 = !DILocation(line: 18, column: 12, scope: !47)
!79 = !DILocation(line: 18, column: 14, scope: !47)
!80 = !DILocation(line: 19, column: 18, scope: !47)
!81 = !DILocation(line: 19, column: 11, scope: !47)
!82 = !DILocation(line: 20, column: 19, scope: !47)
!83 = !DILocation(line: 20, column: 12, scope: !47)
!84 = !DILocation(line: 20, column: 11, scope: !47)
!85 = !DILocation(line: 18, column: 9, scope: !47)
!86 = !DILocation(line: 21, column: 3, scope: !47)
!87 = !DILocation(line: 8, column: 29, scope: !41)
!88 = distinct !{!88, !43, !89, !90}
!89 = !DILocation(line: 21, column: 3, scope: !27)
!90 = !{!"llvm.loop.mustprogress"}
!91 = !DILocation(line: 22, column: 30, scope: !16)
!92 = !DILocation(line: 22, column: 37, scope: !16)
!93 = !DILocation(line: 22, column: 43, scope: !16)
!94 = !DILocation(line: 22, column: 49, scope: !16)
!95 = !DILocation(line: 22, column: 57, scope: !16)
!96 = !DILocation(line: 22, column: 3, scope: !16)
!97 = !DILocation(line: 24, column: 1, scope: !16)
!98 = !DILocation(line: 23, column: 3, scope: !16)
!99 = distinct !DISubprogram(name: "weight", scope: !2, file: !2, line: 4, type: !100, scopeLine: 4, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !7, retainedNodes: !102)
!100 = !DISubroutineType(types: !101)
!101 = !{!19, !19}
!102 = !{!103}
!103 = !DILocalVariable(name: "i", arg: 1, scope: !99, file: !2, line: 4, type: !19)
!104 = !DILocation(line: 4, column: 23, scope: !99)
!105 = !DILocation(line: 4, column: 35, scope: !99)
!106 = !DILocation(line: 4, column: 37, scope: !99)
!107 = !DILocation(line: 4, column: 28, scope: !99)
!108 = !DISubprogram(name: "printf", scope: !109, file: !109, line: 356, type: !110, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized, retainedNodes: !115)
!109 = !DIFile(filename: "/usr/include/stdio.h", directory: "", checksumkind: CSK_MD5, checksum: "b5a90985555f47bfb88eff5a8f0f5b72")
!110 = !DISubroutineType(types: !111)
!111 = !{!19, !112, null}
!112 = !DIDerivedType(tag: DW_TAG_restrict_type, baseType: !113)
!113 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !114, size: 64)
!114 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !4)
!115 = !{}
