; ModuleID = 'examples/recursion.c'
source_filename = "examples/recursion.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@__const.main.a = private unnamed_addr constant [4 x i32] [i32 5, i32 3, i32 9, i32 1], align 16
@.str = private unnamed_addr constant [11 x i8] c"%ld %d %d\0A\00", align 1, !dbg !0

; Function Attrs: nounwind uwtable
define dso_local i32 @main() #0 !dbg !16 {
  %1 = alloca i32, align 4
  %2 = alloca [4 x i32], align 16
  store i32 0, ptr %1, align 4
  call void @llvm.lifetime.start.p0(i64 16, ptr %2) #5, !dbg !25
  call void @llvm.dbg.declare(metadata ptr %2, metadata !21, metadata !DIExpression()), !dbg !26
  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %2, ptr align 16 @__const.main.a, i64 16, i1 false), !dbg !26
  %3 = call i64 @fib(i32 noundef 10), !dbg !27
  %4 = getelementptr inbounds [4 x i32], ptr %2, i64 0, i64 0, !dbg !28
  %5 = call i32 @find(ptr noundef %4, i32 noundef 4, i32 noundef 9), !dbg !29
  %6 = getelementptr inbounds [4 x i32], ptr %2, i64 0, i64 0, !dbg !30
  %7 = call i32 @find(ptr noundef %6, i32 noundef 4, i32 noundef 7), !dbg !31
  %8 = call i32 (ptr, ...) @printf(ptr noundef @.str, i64 noundef %3, i32 noundef %5, i32 noundef %7), !dbg !32
  call void @llvm.lifetime.end.p0(i64 16, ptr %2) #5, !dbg !33
  ret i32 0, !dbg !34
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare void @llvm.dbg.declare(metadata, metadata, metadata) #2

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias nocapture writeonly, ptr noalias nocapture readonly, i64, i1 immarg) #3

declare !dbg !35 i32 @printf(ptr noundef, ...) #4

; Function Attrs: nounwind uwtable
define internal i64 @fib(i32 noundef %0) #0 !dbg !43 {
  %2 = alloca i64, align 8
  %3 = alloca i32, align 4
  store i32 %0, ptr %3, align 4, !tbaa !49
  call void @llvm.dbg.declare(metadata ptr %3, metadata !48, metadata !DIExpression()), !dbg !53
  %4 = load i32, ptr %3, align 4, !dbg !54, !tbaa !49
  %5 = icmp slt i32 %4, 2, !dbg !56
  br i1 %5, label %6, label %9, !dbg !57

6:                                                ; preds = %1
  %7 = load i32, ptr %3, align 4, !dbg !58, !tbaa !49
  %8 = sext i32 %7 to i64, !dbg !58
  store i64 %8, ptr %2, align 8, !dbg !59
  br label %17, !dbg !59

9:                                                ; preds = %1
  %10 = load i32, ptr %3, align 4, !dbg !60, !tbaa !49
  %11 = sub nsw i32 %10, 1, !dbg !61
  %12 = call i64 @fib(i32 noundef %11), !dbg !62
  %13 = load i32, ptr %3, align 4, !dbg !63, !tbaa !49
  %14 = sub nsw i32 %13, 2, !dbg !64
  %15 = call i64 @fib(i32 noundef %14), !dbg !65
  %16 = add nsw i64 %12, %15, !dbg !66
  store i64 %16, ptr %2, align 8, !dbg !67
  br label %17, !dbg !67

17:                                               ; preds = %9, %6
  %18 = load i64, ptr %2, align 8, !dbg !68
  ret i64 %18, !dbg !68
}

; Function Attrs: nounwind uwtable
define internal i32 @find(ptr noundef %0, i32 noundef %1, i32 noundef %2) #0 !dbg !69 {
  %4 = alloca i32, align 4
  %5 = alloca ptr, align 8
  %6 = alloca i32, align 4
  %7 = alloca i32, align 4
  %8 = alloca i32, align 4
  %9 = alloca i32, align 4
  store ptr %0, ptr %5, align 8, !tbaa !80
  call void @llvm.dbg.declare(metadata ptr %5, metadata !75, metadata !DIExpression()), !dbg !82
  store i32 %1, ptr %6, align 4, !tbaa !49
  call void @llvm.dbg.declare(metadata ptr %6, metadata !76, metadata !DIExpression()), !dbg !83
  store i32 %2, ptr %7, align 4, !tbaa !49
  call void @llvm.dbg.declare(metadata ptr %7, metadata !77, metadata !DIExpression()), !dbg !84
  call void @llvm.lifetime.start.p0(i64 4, ptr %8) #5, !dbg !85
  call void @llvm.dbg.declare(metadata ptr %8, metadata !78, metadata !DIExpression()), !dbg !86
  store i32 0, ptr %8, align 4, !dbg !86, !tbaa !49
  br label %10, !dbg !85

10:                                               ; preds = %26, %3
  %11 = load i32, ptr %8, align 4, !dbg !87, !tbaa !49
  %12 = load i32, ptr %6, align 4, !dbg !89, !tbaa !49
  %13 = icmp slt i32 %11, %12, !dbg !90
  br i1 %13, label %15, label %14, !dbg !91

14:                                               ; preds = %10
  store i32 2, ptr %9, align 4
  br label %29, !dbg !91

15:                                               ; preds = %10
  %16 = load ptr, ptr %5, align 8, !dbg !92, !tbaa !80
  %17 = load i32, ptr %8, align 4, !dbg !94, !tbaa !49
  %18 = sext i32 %17 to i64, !dbg !92
  %19 = getelementptr inbounds i32, ptr %16, i64 %18, !dbg !92
  %20 = load i32, ptr %19, align 4, !dbg !92, !tbaa !49
  %21 = load i32, ptr %7, align 4, !dbg !95, !tbaa !49
  %22 = icmp eq i32 %20, %21, !dbg !96
  br i1 %22, label %23, label %25, !dbg !97

23:                                               ; preds = %15
  %24 = load i32, ptr %8, align 4, !dbg !98, !tbaa !49
  store i32 %24, ptr %4, align 4, !dbg !99
  store i32 1, ptr %9, align 4
  br label %29, !dbg !99

25:                                               ; preds = %15
  br label %26, !dbg !95

26:                                               ; preds = %25
  %27 = load i32, ptr %8, align 4, !dbg !100, !tbaa !49
  %28 = add nsw i32 %27, 1, !dbg !100
  store i32 %28, ptr %8, align 4, !dbg !100, !tbaa !49
  br label %10, !dbg !101, !llvm.loop !102

29:                                               ; preds = %23, %14
  call void @llvm.lifetime.end.p0(i64 4, ptr %8) #5, !dbg !101
  %30 = load i32, ptr %9, align 4
  switch i32 %30, label %34 [
    i32 2, label %31
    i32 1, label %32
  ]

31:                                               ; preds = %29
  store i32 -1, ptr %4, align 4, !dbg !105
  br label %32, !dbg !105

32:                                               ; preds = %31, %29
  %33 = load i32, ptr %4, align 4, !dbg !106
  ret i32 %33, !dbg !106

34:                                               ; preds = %29
  unreachable
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nocallback nofree nounwind willreturn memory(argmem: readwrite) }
attributes #4 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nounwind }

!llvm.dbg.cu = !{!7}
!llvm.module.flags = !{!9, !10, !11, !12, !13, !14}
!llvm.ident = !{!15}

!0 = !DIGlobalVariableExpression(var: !1, expr: !DIExpression())
!1 = distinct !DIGlobalVariable(scope: null, file: !2, line: 19, type: !3, isLocal: true, isDefinition: true)
!2 = !DIFile(filename: "examples/recursion.c", directory: "/src", checksumkind: CSK_MD5, checksum: "b89d0549e9d4019e4361010ac295a28e")
!3 = !DICompositeType(tag: DW_TAG_array_type, baseType: !4, size: 88, elements: !5)
!4 = !DIBasicType(name: "char", size: 8, encoding: DW_ATE_signed_char)
!5 = !{!6}
!6 = !DISubrange(count: 11)
!7 = distinct !DICompileUnit(language: DW_LANG_C11, file: !2, producer: "Debian clang version 16.0.6 (15~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, globals: !8, splitDebugInlining: false, nameTableKind: None)
!8 = !{!0}
!9 = !{i32 7, !"Dwarf Version", i32 5}
!10 = !{i32 2, !"Debug Info Version", i32 3}
!11 = !{i32 1, !"wchar_size", i32 4}
!12 = !{i32 8, !"PIC Level", i32 2}
!13 = !{i32 7, !"PIE Level", i32 2}
!14 = !{i32 7, !"uwtable", i32 2}
!15 = !{!"Debian clang version 16.0.6 (15~deb12u1)"}
!16 = distinct !DISubprogram(name: "main", scope: !2, file: !2, line: 17, type: !17, scopeLine: 17, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !7, retainedNodes: !20)
!17 = !DISubroutineType(types: !18)
!18 = !{!19}
!19 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!20 = !{!21}
!21 = !DILocalVariable(name: "a", scope: !16, file: !2, line: 18, type: !22)
!22 = !DICompositeType(tag: DW_TAG_array_type, baseType: !19, size: 128, elements: !23)
!23 = !{!24}
!24 = !DISubrange(count: 4)
!25 = !DILocation(line: 18, column: 3, scope: !16)
!26 = !DILocation(line: 18, column: 7, scope: !16)
!27 = !DILocation(line: 19, column: 25, scope: !16)
!28 = !DILocation(line: 19, column: 39, scope: !16)
!29 = !DILocation(line: 19, column: 34, scope: !16)
!30 = !DILocation(line: 19, column: 54, scope: !16)
!31 = !DILocation(line: 19, column: 49, scope: !16)
!32 = !DILocation(line: 19, column: 3, scope: !16)
!33 = !DILocation(line: 21, column: 1, scope: !16)
!34 = !DILocation(line: 20, column: 3, scope: !16)
!35 = !DISubprogram(name: "printf", scope: !36, file: !36, line: 356, type: !37, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized, retainedNodes: !42)
!36 = !DIFile(filename: "/usr/include/stdio.h", directory: "", checksumkind: CSK_MD5, checksum: "b5a90985555f47bfb88eff5a8f0f5b72")
!37 = !DISubroutineType(types: !38)
!38 = !{!19, !39, null}
!39 = !DIDerivedType(tag: DW_TAG_restrict_type, baseType: !40)
!40 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !41, size: 64)
!41 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !4)
!42 = !{}
!43 = distinct !DISubprogram(name: "fib", scope: !2, file: !2, line: 4, type: !44, scopeLine: 4, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !7, retainedNodes: !47)
!44 = !DISubroutineType(types: !45)
!45 = !{!46, !19}
!46 = !DIBasicType(name: "long", size: 64, encoding: DW_ATE_signed)
!47 = !{!48}
!48 = !DILocalVariable(name: "n", arg: 1, scope: !43, file: !2, line: 4, type: !19)
!49 = !{!50, !50, i64 0}
!50 = !{!"int", !51, i64 0}
!51 = !{!"omnipotent char", !52, i64 0}
!52 = !{!"Simple C/C++ TBAA"}
!53 = !DILocation(line: 4, column: 21, scope: !43)
!54 = !DILocation(line: 5, column: 7, scope: !55)
!55 = distinct !DILexicalBlock(scope: !43, file: !2, line: 5, column: 7)
!56 = !DILocation(line: 5, column: 9, scope: !55)
!57 = !DILocation(line: 5, column: 7, scope: !43)
!58 = !DILocation(line: 6, column: 12, scope: !55)
!59 = !DILocation(line: 6, column: 5, scope: !55)
!60 = !DILocation(line: 7, column: 14, scope: !43)
!61 = !DILocation(line: 7, column: 16, scope: !43)
!62 = !DILocation(line: 7, column: 10, scope: !43)
!63 = !DILocation(line: 7, column: 27, scope: !43)
!64 = !DILocation(line: 7, column: 29, scope: !43)
!65 = !DILocation(line: 7, column: 23, scope: !43)
!66 = !DILocation(line: 7, column: 21, scope: !43)
!67 = !DILocation(line: 7, column: 3, scope: !43)
!68 = !DILocation(line: 8, column: 1, scope: !43)
!69 = distinct !DISubprogram(name: "find", scope: !2, file: !2, line: 10, type: !70, scopeLine: 10, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !7, retainedNodes: !74)
!70 = !DISubroutineType(types: !71)
!71 = !{!19, !72, !19, !19}
!72 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !73, size: 64)
!73 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !19)
!74 = !{!75, !76, !77, !78}
!75 = !DILocalVariable(name: "a", arg: 1, scope: !69, file: !2, line: 10, type: !72)
!76 = !DILocalVariable(name: "n", arg: 2, scope: !69, file: !2, line: 10, type: !19)
!77 = !DILocalVariable(name: "x", arg: 3, scope: !69, file: !2, line: 10, type: !19)
!78 = !DILocalVariable(name: "i", scope: !79, file: !2, line: 11, type: !19)
!79 = distinct !DILexicalBlock(scope: !69, file: !2, line: 11, column: 3)
!80 = !{!81, !81, i64 0}
!81 = !{!"any pointer", !51, i64 0}
!82 = !DILocation(line: 10, column: 28, scope: !69)
!83 = !DILocation(line: 10, column: 35, scope: !69)
!84 = !DILocation(line: 10, column: 42, scope: !69)
!85 = !DILocation(line: 11, column: 8, scope: !79)
!86 = !DILocation(line: 11, column: 12, scope: !79)
!87 = !DILocation(line: 11, column: 19, scope: !88)
!88 = distinct !DILexicalBlock(scope: !79, file: !2, line: 11, column: 3)
!89 = !DILocation(line: 11, column: 23, scope: !88)
!90 = !DILocation(line: 11, column: 21, scope: !88)
!91 = !DILocation(line: 11, column: 3, scope: !79)
!92 = !DILocation(line: 12, column: 9, scope: !93)
!93 = distinct !DILexicalBlock(scope: !88, file: !2, line: 12, column: 9)
!94 = !DILocation(line: 12, column: 11, scope: !93)
!95 = !DILocation(line: 12, column: 17, scope: !93)
!96 = !DILocation(line: 12, column: 14, scope: !93)
!97 = !DILocation(line: 12, column: 9, scope: !88)
!98 = !DILocation(line: 13, column: 14, scope: !93)
!99 = !DILocation(line: 13, column: 7, scope: !93)
!100 = !DILocation(line: 11, column: 27, scope: !88)
!101 = !DILocation(line: 11, column: 3, scope: !88)
!102 = distinct !{!102, !91, !103, !104}
!103 = !DILocation(line: 13, column: 14, scope: !79)
!104 = !{!"llvm.loop.mustprogress"}
!105 = !DILocation(line: 14, column: 3, scope: !69)
!106 = !DILocation(line: 15, column: 1, scope: !69)
